import Foundation

/// The file that stands in for a target until it is complete: `.NAME.marbles-XXXXXXXX` beside
/// it (eight hex digits), made exclusively, with the replaced file's permissions (and, for
/// root, its owner). Whoever writes it renames it over the target once complete, so the
/// target is either the old file or the whole new one; a process killed meanwhile leaves the
/// old file and this one. The command line's outputs and a recorder writing over an earlier
/// trace both make theirs here.
package enum ReplacementFile {
    /// Makes the temporary file for the target at `resolved` (symbolic links resolved), keeping
    /// `existing`'s mode and owner when there is a file to replace. Returns its path and an
    /// open descriptor (close-on-exec), or the `errno` of the failure to make it.
    package static func make(beside resolved: PathName, keeping existing: stat?) -> Result<(path: PathName, descriptor: Int32), Errno> {
        let folder = resolved.folder
        // Room for the prefix and suffix within a file name's 255 bytes.
        let base = PathName(bytes: resolved.lastComponent.bytes.prefix(200))
        var generator = SystemRandomNumberGenerator()
        while true {
            let suffix = String(generator.next() as UInt32, radix: 16)
            let temporary = folder.appending(PathName(".") + base + (".marbles-" + String(repeating: "0", count: 8 - suffix.count) + suffix))
            let descriptor = temporary.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666) }
            if descriptor < 0 {
                if errno == EEXIST || errno == EINTR { continue }
                return .failure(Errno(code: errno))
            }
            if let existing {
                _ = fchmod(descriptor, existing.st_mode & 0o7777)
                if geteuid() == 0 { _ = fchown(descriptor, existing.st_uid, existing.st_gid) }
            }
            return .success((temporary, descriptor))
        }
    }

    /// An `errno` value, with its reason.
    package struct Errno: Error {
        package let code: Int32
        package var reason: String { String(cString: strerror(code)) }
    }
}
