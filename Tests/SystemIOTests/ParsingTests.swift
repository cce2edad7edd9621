import Testing
@testable import SystemIO

@Suite struct AdapterSelectorTests {
    @Test func parsesKernelNames() throws {
        #expect(try AdapterSelector(parsing: "hci0") == .index(0))
        #expect(try AdapterSelector(parsing: "hci12") == .index(12))
        #expect(try AdapterSelector(parsing: "hci3").description == "hci3")
    }

    @Test func parsesAddressesMostSignificantByteFirst() throws {
        let selector = try AdapterSelector(parsing: "aa:BB:0c:DD:ee:01")
        #expect(selector == .address([0xAA, 0xBB, 0x0C, 0xDD, 0xEE, 0x01]))
        #expect(selector.description == "AA:BB:0C:DD:EE:01")
    }

    @Test(arguments: ["", "hci", "hcix", "hci-1", "hci99999", "hci0 ", "AA:BB:CC:DD:EE", "AA:BB:CC:DD:EE:FF:00",
                      "GG:BB:CC:DD:EE:FF", "A:BB:CC:DD:EE:FF0", "usb0"])
    func rejectsOthers(text: String) {
        #expect(throws: SystemIOError.invalidAdapter(text)) { try AdapterSelector(parsing: text) }
    }

    @Test func invalidAdapterMessageShowsTheForms() {
        let message = SystemIOError.invalidAdapter("usb0").description
        #expect(message == "invalid adapter \"usb0\": expected a name like hci0 or an address like AA:BB:CC:DD:EE:FF")
    }
}

@Suite struct BaudRateTests {
    @Test(arguments: [9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600, 1000000, 2000000, 3000000, 4000000])
    func acceptsStandardRates(rate: Int) throws {
        #expect(try BaudRate(rate).bitsPerSecond == rate)
    }

    @Test(arguments: [0, -9600, 11520, 115201, 4000001, 8000000])
    func rejectsOthersListingTheValidOnes(rate: Int) {
        #expect(throws: SystemIOError.invalidBaudRate(rate, valid: BaudRate.standard)) { try BaudRate(rate) }
    }

    @Test func tableIsAscendingFrom9600To4000000() {
        #expect(BaudRate.standard.first == 9600)
        #expect(BaudRate.standard.last == 4_000_000)
        #expect(BaudRate.standard == BaudRate.standard.sorted())
        let message = SystemIOError.invalidBaudRate(11520, valid: BaudRate.standard).description
        #expect(message.hasPrefix("unsupported baud rate 11520 (valid: 9600, 19200, 38400"))
        #expect(message.hasSuffix("3500000, 4000000)"))
    }

    @Test func serialTransportValidatesTheRate() {
        #expect(throws: SystemIOError.invalidBaudRate(12345, valid: BaudRate.standard)) {
            try H4StreamTransport(serialPath: "/dev/ttyUSB0", baudRate: 12345)
        }
    }
}

@Suite struct TCPEndpointTests {
    @Test func parsesHostAndPort() throws {
        #expect(try TCPEndpoint(parsing: "127.0.0.1:9000") == TCPEndpoint(host: "127.0.0.1", port: 9000))
        #expect(try TCPEndpoint(parsing: "gateway.local:1") == TCPEndpoint(host: "gateway.local", port: 1))
        #expect(try TCPEndpoint(parsing: "[::1]:65535") == TCPEndpoint(host: "::1", port: 65535))
        #expect(try TCPEndpoint(parsing: "[::1]:9000").description == "[::1]:9000")
    }

    @Test(arguments: [("localhost", "missing :port"), (":9000", "empty host"), ("host:0", "port \"0\" is not a number in 1...65535"),
                      ("host:70000", "port \"70000\" is not a number in 1...65535"), ("::1:9000", "write an IPv6 address in brackets"),
                      ("[::1]9000", "missing :port"), ("[::1:9000", "missing ] after IPv6 address")])
    func rejectsMalformed(text: String, reason: String) {
        #expect(throws: SystemIOError.invalidEndpoint(text, reason: reason)) { try TCPEndpoint(parsing: text) }
    }

    @Test func transportNameSaysTCP() throws {
        #expect(try H4StreamTransport(tcp: "127.0.0.1:9000").name == "tcp:127.0.0.1:9000")
    }
}

@Suite struct SystemErrorTests {
    @Test func namesTheCallTheErrnoAndItsMeaning() {
        let error = SystemError(code: 97, call: "socket(AF_BLUETOOTH)")  // 97 is EAFNOSUPPORT on Linux
        #expect(error.symbolicName == "EAFNOSUPPORT")
        #expect(error.description.hasPrefix("socket(AF_BLUETOOTH) failed: EAFNOSUPPORT ("))
        #expect(SystemError(code: 4095, call: "x").symbolicName == "errno 4095")
    }
}
