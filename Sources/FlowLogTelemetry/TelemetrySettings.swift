#if Network
    import OTel

    /// Which `OTEL_*` settings turn exporting on, and the ones FlowLog checks itself before swift-otel
    /// reads the rest: a value this build cannot honour is an error at start, not a silent default.
    enum TelemetrySettings {
        /// The configuration to start from (swift-otel applies the environment on top of it), or nil
        /// when exporting is off: no endpoint named, `OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none`
        /// or the sampler `always_off`.
        static func configuration(_ environment: [String: String], serviceName: String) throws(Telemetry.SettingError) -> OTel.Configuration? {
            func value(_ name: String) -> String? {
                guard let value = environment[name], !value.isEmpty else { return nil }
                return value
            }
            if value("OTEL_SDK_DISABLED")?.lowercased() == "true" { return nil }
            if value("OTEL_TRACES_EXPORTER")?.lowercased() == "none" { return nil }
            guard value("OTEL_EXPORTER_OTLP_ENDPOINT") != nil || value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != nil else { return nil }
            if let exporter = value("OTEL_TRACES_EXPORTER"), exporter.lowercased() != "otlp" {
                throw .init(
                    description: "OTEL_TRACES_EXPORTER=\(exporter): flowlog exports spans over OTLP only; set it to otlp, or none to export nothing.")
            }
            for name in ["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] {
                if let wire = value(name), wire != "http/protobuf", wire != "http/json" {
                    throw .init(
                        description:
                            "\(name)=\(wire): flowlog exports over OTLP/HTTP (http/protobuf, the collector's port 4318, or http/json), not \(wire); set it to http/protobuf."
                    )
                }
            }
            if let sampler = value("OTEL_TRACES_SAMPLER"), !samplers.contains(sampler) {
                throw .init(
                    description: "OTEL_TRACES_SAMPLER=\(sampler) is not a sampler flowlog knows; use one of \(samplers.joined(separator: ", ")).")
            }
            // Nothing would ever be sampled: starting the exporter (its HTTP client, its tasks) would
            // only cost each command its start-up and a flush at exit.
            if value("OTEL_TRACES_SAMPLER") == "always_off" { return nil }
            if let argument = value("OTEL_TRACES_SAMPLER_ARG"), value("OTEL_TRACES_SAMPLER")?.hasSuffix("traceidratio") == true {
                guard let ratio = Double(argument), ratio >= 0, ratio <= 1 else {
                    throw .init(
                        description: "OTEL_TRACES_SAMPLER_ARG=\(argument) is not a ratio; give a number from 0 to 1 (0.1 keeps one trace in ten).")
                }
            }
            var configuration = OTel.Configuration.default
            configuration.serviceName = serviceName
            // Traces only: FlowLog's metrics are Prometheus's (`/metrics`), its logs its own.
            configuration.metrics.enabled = false
            configuration.logs.enabled = false
            return configuration
        }

        /// The samplers of the OpenTelemetry specification that swift-otel implements.
        static let samplers = [
            "always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio",
        ]
    }
#endif
