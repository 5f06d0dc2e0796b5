@_exported public import FlowLogDomain
@_exported public import TaskList

/// The domain this package's logs serve: the to-do list. The core's sources name it `LogDecider`
/// (FlowLog's own package binds the shop the same way), so `tasklog` runs the very code `flowlog`
/// runs, compiled for the list.
public typealias LogDecider = TaskListDecider
