#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging

extension NetworkServer {
    /// Raises the soft limit of open files (`RLIMIT_NOFILE`) to the hard limit: each connection
    /// is a file, and the usual soft limit of 1,024 let 1,050 silent connections lock every
    /// other client out (accept fails while the limit is reached).
    /// - Returns: the soft limit in force afterwards.
    @discardableResult
    static func raiseFileLimit(logger: Logger) -> UInt64 {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        guard limit.rlim_cur < limit.rlim_max else { return UInt64(limit.rlim_cur) }
        let before = limit.rlim_cur
        limit.rlim_cur = limit.rlim_max
        if setrlimit(resource, &limit) != 0 {
            logger.warning("cannot raise the limit of open files from \(before) to \(limit.rlim_max)")
            return UInt64(before)
        }
        logger.info("open files: at most \(limit.rlim_cur) (raised from \(before))")
        return UInt64(limit.rlim_cur)
    }
}
