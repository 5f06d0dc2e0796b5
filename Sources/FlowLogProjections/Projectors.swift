/// The projectors' contract and runner (`FlowLogProjectors`) come with the projectors built on them.
@_exported public import FlowLogProjectors
