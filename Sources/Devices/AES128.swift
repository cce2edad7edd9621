import CLibCrypto

/// AES-128 encryption of single blocks under one key, by OpenSSL's libcrypto (EVP, ECB without padding): the
/// security function `e` of Core Spec 5.4, Vol 3, Part H, §2.2.1.
///
/// The key schedule is computed once, when the value is made; each `encrypt` is one block through the prepared
/// context. Not thread-safe: one owner at a time (`AddressResolver` keeps its keys behind its lock).
final class AES128 {
    private let context: OpaquePointer

    /// Prepares encryption under `key` (sixteen bytes, most significant first); nil if libcrypto refuses.
    init?(key: [UInt8]) {
        guard key.count == 16, let context = EVP_CIPHER_CTX_new() else { return nil }
        guard EVP_EncryptInit_ex(context, EVP_aes_128_ecb(), nil, key, nil) == 1,
              EVP_CIPHER_CTX_set_padding(context, 0) == 1
        else {
            EVP_CIPHER_CTX_free(context)
            return nil
        }
        self.context = context
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// Encrypts one 16-byte block, most significant byte first, into `output`; false if libcrypto failed.
    func encrypt(_ block: UnsafePointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) -> Bool {
        var written: Int32 = 0
        return EVP_EncryptUpdate(context, output, &written, block, 16) == 1 && written == 16
    }
}
