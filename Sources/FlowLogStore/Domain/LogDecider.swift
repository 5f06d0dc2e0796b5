public import FlowDomain

/// The domain this build's logs serve: the one line that binds the core to a domain, the shop,
/// whose conformance to `LogDomain` (its states and orders as bytes, their upkeep) is in `Shop/`.
/// Storage never names it: backends hold a stream's state as a `StreamState` and what the domain
/// keeps beside the events as `KeptRow`s, which encode, decode and fold through `LogDomain` and
/// `Decider`.
public typealias LogDecider = FlowDecider
