import FlowDomain

/// One analytics service: which events it wants, and the call it takes for each, in its own format.
/// Every call carries the event id as its message id, so a collector can drop the duplicates that
/// at-least-once delivery may send after a crash.
public protocol AnalyticsService: Sendable {
    var name: String { get }
    /// The call for an event as one JSON object, or `false` when the service does not track it.
    func writeCall(for record: RecordedEvent, into json: inout JSONWriter) -> Bool
}

/// Segment's `track` call with the ecommerce v2 event names, and the onboarding steps.
public struct SegmentService: AnalyticsService {
    public let name = "segment"
    public init() {}

    public func writeCall(for record: RecordedEvent, into json: inout JSONWriter) -> Bool {
        let event: String
        var properties: [(StaticString, Property)] = []
        switch record.event {
        case .cart(.productAdded(let added)):
            event = "Product Added"
            properties = [("product_id", .text(added.productId)), ("name", .text(added.name)), ("price", .money(added.unitPrice)), ("quantity", .int(added.quantity))]
        case .cart(.productRemoved(let removed)):
            event = "Product Removed"
            properties = [("product_id", .text(removed.productId)), ("quantity", .int(removed.quantity))]
        case .cart(.discountApplied(let discount)):
            event = "Coupon Applied"
            properties = [("coupon_id", .text(discount.discountId)), ("discount_percent", .int(discount.percent))]
            if let productId = discount.productId { properties.append(("product_id", .text(productId))) }
        case .cart(.discountRemoved(let discount)):
            event = "Coupon Removed"
            properties = [("coupon_id", .text(discount.discountId))]
        case .cart(.checkoutStarted(let checkout)):
            event = "Checkout Started"
            properties = [("value", .money(checkout.total)), ("quantity", .int(checkout.itemCount)), ("currency", .text("USD"))]
        case .cart(.orderPlaced(let order)):
            event = "Order Completed"
            properties = [("order_id", .text(order.orderId)), ("total", .money(order.total)), ("quantity", .int(order.itemCount)), ("currency", .text("USD"))]
        case .cart(.paymentFailed(let failure)):
            event = "Payment Failed"
            properties = [("reason", .text(failure.reason))]
        case .navigation(.appLaunched(let launch)):
            event = "Application Opened"
            properties = [("has_onboarded", .flag(launch.hasOnboarded))]
        case .navigation(.signUpStarted): event = "Sign Up Started"
        case .navigation(.onboardingAdvanced): event = "Onboarding Step Completed"; properties = [("step", .int(1))]
        case .navigation(.onboardingFinished): event = "Onboarding Completed"
        case .navigation(.loginSucceeded): event = "Signed In"
        case .navigation(.logInStarted), .navigation(.onboardingWentBack), .navigation(.loginCancelled),
             .navigation(.tabSelected), .navigation(.modalPresented), .navigation(.modalDismissed):
            return false
        }
        json.beginObject()
        json.key("type"); json.string("track")
        json.key("event"); json.string(event)
        json.key("anonymousId"); json.string(record.stream)
        json.key("messageId"); json.eventID(record.eventId)
        json.key("timestamp"); json.timestamp(record.timestamp)
        json.key("properties"); Property.write(properties, into: &json)
        json.endObject()
        return true
    }
}

/// A snake_case event-name-and-params format (as mobile analytics SDKs take), with its own choice:
/// it tracks navigation too, and not coupons.
public struct SnakeCaseService: AnalyticsService {
    public let name = "snake"
    public init() {}

    public func writeCall(for record: RecordedEvent, into json: inout JSONWriter) -> Bool {
        let event: String
        var params: [(StaticString, Property)] = []
        switch record.event {
        case .cart(.productAdded(let added)):
            event = "add_to_cart"
            params = [("item_id", .text(added.productId)), ("price_cents", .int(added.unitPrice)), ("quantity", .int(added.quantity))]
        case .cart(.productRemoved(let removed)):
            event = "remove_from_cart"
            params = [("item_id", .text(removed.productId)), ("quantity", .int(removed.quantity))]
        case .cart(.checkoutStarted(let checkout)):
            event = "begin_checkout"
            params = [("value_cents", .int(checkout.total))]
        case .cart(.orderPlaced(let order)):
            event = "purchase"
            params = [("transaction_id", .text(order.orderId)), ("value_cents", .int(order.total))]
        case .cart(.paymentFailed(let failure)):
            event = "payment_failed"
            params = [("reason", .text(failure.reason))]
        case .navigation(.appLaunched): event = "app_open"
        case .navigation(.signUpStarted): event = "sign_up_started"
        case .navigation(.onboardingAdvanced): event = "tutorial_step"
        case .navigation(.onboardingFinished): event = "tutorial_complete"
        case .navigation(.loginSucceeded): event = "login"
        case .navigation(.tabSelected(let selection)): event = "select_tab"; params = [("tab", .int(selection.tab))]
        case .navigation(.modalPresented): event = "modal_open"
        case .cart(.discountApplied), .cart(.discountRemoved), .navigation(.logInStarted), .navigation(.onboardingWentBack),
             .navigation(.loginCancelled), .navigation(.modalDismissed):
            return false
        }
        json.beginObject()
        json.key("event_name"); json.string(event)
        json.key("event_id"); json.eventID(record.eventId)
        json.key("user_pseudo_id"); json.string(record.stream)
        json.key("event_timestamp_micros"); json.int(Int(record.timestamp.microseconds))
        json.key("params"); Property.write(params, into: &json)
        json.endObject()
        return true
    }
}

/// A property value of an analytics call.
enum Property {
    case text(String)
    case int(Int)
    case flag(Bool)
    /// Cents, written as decimal currency units (`1250` → `12.5`), as Segment's spec wants prices.
    case money(Int)

    static func write(_ properties: [(StaticString, Property)], into json: inout JSONWriter) {
        json.beginObject()
        for (name, value) in properties {
            json.key(name)
            switch value {
            case .text(let text): json.string(text)
            case .int(let number): json.int(number)
            case .flag(let flag): json.bool(flag)
            case .money(let cents): json.value(.number(Double(cents) / 100))
            }
        }
        json.endObject()
    }
}

/// Where a service's calls go.
public protocol TrackerSink: AnyObject {
    /// Delivers calls (JSON objects) in order; returns only once they are delivered.
    func deliver(_ calls: [[UInt8]]) throws
}

/// Appends each call as a line to a file, and syncs it before returning.
public final class NDJSONFileSink: TrackerSink {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public func deliver(_ calls: [[UInt8]]) throws {
        guard !calls.isEmpty else { return }
        let descriptor = open(path, O_RDWR | O_CREAT | O_APPEND, 0o644)
        guard descriptor >= 0 else { throw FlowLogError.input("Cannot write \(path): \(String(cString: strerror(errno))).") }
        defer { close(descriptor) }
        try dropTornLine(descriptor)
        var bytes: [UInt8] = []
        for call in calls { bytes += call; bytes.append(0x0A) }
        try FileDescriptorOutput(fileDescriptor: descriptor).write(bytes)
        guard fsync(descriptor) == 0 else { throw FlowLogError.input("Cannot sync \(path): \(String(cString: strerror(errno))).") }
    }

    /// A process killed in the middle of a write leaves half a line at the end; its calls were not
    /// checkpointed and come again, so the half line is cut off rather than left to break readers.
    private func dropTornLine(_ descriptor: Int32) throws {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size > 0 else { return }
        var end = Int(info.st_size)
        var byte: UInt8 = 0
        while end > 0, pread(descriptor, &byte, 1, off_t(end - 1)) == 1, byte != 0x0A { end -= 1 }
        if end != Int(info.st_size), ftruncate(descriptor, off_t(end)) != 0 {
            throw FlowLogError.input("Cannot repair the end of \(path): \(String(cString: strerror(errno))).")
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
