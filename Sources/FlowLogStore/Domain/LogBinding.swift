/// Every module above the log contract sees the domain it is compiled for (`LogDecider`, its
/// module and `LogDomain`) through this one, as it sees the contract: it imports no domain module.
@_exported public import LogBinding
