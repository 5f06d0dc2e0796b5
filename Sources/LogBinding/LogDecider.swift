@_exported public import FlowDomain
@_exported public import FlowLogDomain

/// The domain this package's logs serve: the one line that binds the core to a domain, the shop,
/// whose conformance to `LogDomain` (its states and orders as bytes, their JSON, their upkeep) sits
/// beside it.
///
/// The core's sources name `LogDecider` and import this module, never a domain's: a package that
/// serves another domain compiles the same core sources against a `LogBinding` of its own
/// (Examples/TaskList), so the binding costs nothing at run time (no generic code left
/// unspecialised, no dynamic dispatch). The module brings the domain's module and `LogDomain`
/// with it (`@_exported`), since the core's public signatures name the domain's member types
/// (`LogDecider.State`, `LogDecider.Event`).
public typealias LogDecider = FlowDecider
