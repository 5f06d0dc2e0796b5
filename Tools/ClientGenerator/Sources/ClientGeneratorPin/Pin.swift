// Intentionally empty: see Package.swift.
