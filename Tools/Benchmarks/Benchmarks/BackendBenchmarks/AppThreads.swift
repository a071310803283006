import Foundation

// The threads an app's async work has, given back to a measurement.
//
// package-benchmark runs its runner as a job on Swift's shared pool and blocks that job's thread on a semaphore while
// an async benchmark runs (`Benchmark.runAsync`). The pool has as many threads as the machine has cores: on two cores,
// every async row ran on the one thread left, so work an app runs side by side (the first screen's two reads) ran one
// after the other. Two loops of 500 µs under `async let` in a row took 1,000 µs; on these threads, 500 µs.
//
// A row's measured task runs with `AppThreads.shared` as its executor preference: it and its child tasks run on two
// threads of their own, as many as the pool an app has on this machine. Actors and unstructured tasks (the session's
// token check, the in-process backend's handlers) still run on the shared pool.

/// A task executor of a fixed number of threads, each taking jobs in the order they came.
final class AppThreads: TaskExecutor, @unchecked Sendable {
    /// Two threads: the cores of the machine the figures are from.
    static let shared = AppThreads(count: 2)

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []

    private init(count: Int) {
        for index in 0..<count {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "app-\(index)"
            thread.start()
        }
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }
}
