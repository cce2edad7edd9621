import Testing

/// Tests that open descriptors, sockets and processes. Serialized so that descriptor counts are exact.
@Suite(.serialized) struct LinuxTransportTests {}
