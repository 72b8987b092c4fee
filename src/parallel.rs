//! Independent work on several threads: what [`compile_many`](crate::compile_many) and
//! [`compile_module`](crate::compile_module) compile functions with.
//!
//! Functions differ in size by orders of magnitude (a shader cache holds one-line shaders
//! beside loops of hundreds of blocks), so the items are not split into a chunk per thread
//! in advance: each thread takes the next item nobody has taken, from one shared index,
//! until none is left, and a long item holds up only the thread that has it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

/// The stack of each worker thread. A function that compiles on the caller's thread must
/// compile on a worker too, and Rust gives a spawned thread 2 MiB where the main thread
/// of a Linux process has 8 MiB; the lowering and the analyses of a deeply nested function
/// may recurse deeper than the default would allow.
const WORKER_STACK: usize = 8 << 20;

/// `f` of each of `items`, in the order of `items`, computed on up to `threads` threads:
/// the caller's and `threads - 1` spawned ones (none when one thread suffices). A thread
/// the system refuses to start leaves its share to the others. A panic in `f` is resumed
/// on the caller's thread, with its payload, once every thread has stopped.
pub(crate) fn map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    // Each thread keeps its results with their indices and hands them over at the end,
    // so that the threads share nothing but the index while they work.
    let work = || {
        let mut done = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(index) else {
                return done;
            };
            done.push((index, f(item)));
        }
    };
    let mut results: Vec<Option<R>> = items.iter().map(|_| None).collect();
    thread::scope(|scope| {
        let workers: Vec<_> = (1..threads)
            .filter_map(|_| {
                thread::Builder::new()
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(scope, work)
                    .ok()
            })
            .collect();
        let mut place = |done: Vec<(usize, R)>| {
            for (index, result) in done {
                results[index] = Some(result);
            }
        };
        place(work());
        for worker in workers {
            match worker.join() {
                Ok(done) => place(done),
                Err(payload) => std::panic::resume_unwind(payload),
            }
        }
    });
    results
        .into_iter()
        .map(|result| result.expect("every index below the length was taken by a thread"))
        .collect()
}

/// The threads [`map`] runs on by default: as many as the system says can run at once
/// ([`thread::available_parallelism`]), one when it cannot tell.
pub(crate) fn all_cores() -> usize {
    thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn results_are_in_the_order_of_the_items_whatever_the_threads() {
        let items: Vec<u64> = (0..1000).collect();
        for threads in [0, 1, 2, 3, 8, 2000] {
            let squares = map(&items, threads, |&x| x * x);
            assert_eq!(squares, items.iter().map(|x| x * x).collect::<Vec<_>>());
        }
        assert!(map(&[] as &[u8], 4, |&x| x).is_empty());
    }

    #[test]
    fn a_long_item_holds_up_only_the_thread_that_has_it() {
        // Item 0 waits until every other item is done: the other thread must take them
        // all. Had the items been split among the threads in advance, the waiting thread
        // would hold half of them, and the wait would time out.
        let items: Vec<usize> = (0..64).collect();
        let done = AtomicUsize::new(0);
        let threads_of = map(&items, 2, |&i| {
            if i == 0 {
                let start = Instant::now();
                while done.load(Ordering::SeqCst) < items.len() - 1 {
                    assert!(
                        start.elapsed() < Duration::from_secs(20),
                        "the other items were not all taken while item 0 ran"
                    );
                    std::thread::sleep(Duration::from_millis(1));
                }
            } else {
                done.fetch_add(1, Ordering::SeqCst);
            }
            std::thread::current().id()
        });
        assert!(threads_of[1..].iter().all(|id| *id != threads_of[0]));
    }

    #[test]
    fn a_panic_reaches_the_caller_with_its_message() {
        let items: Vec<usize> = (0..100).collect();
        let payload = std::panic::catch_unwind(|| {
            map(&items, 4, |&i| {
                if i == 57 {
                    panic!("item {i} broke");
                }
                i
            })
        })
        .expect_err("the panic is resumed");
        assert_eq!(payload.downcast_ref::<String>().unwrap(), "item 57 broke");
    }
}
