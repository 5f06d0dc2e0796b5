import Deciding
public import FlowDomain

/// The domain this build's logs serve: the one place the core binds the `Decider` shape to a
/// domain. Storage never names it: backends hold a stream's state as a `StreamState` and what
/// the domain keeps beside the events as `KeptRow`s, and the core encodes, decodes and folds them
/// through the `Decider` requirements and the domain's `StateCodec`.
public typealias LogDecider = FlowDecider
