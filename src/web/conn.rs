//! What the server knows of its open connections: the [`Table`] that admits a new one (or
//! closes an idle one to make room), and [`Timed`], the socket wrapper that gives up on a
//! client not reading its answer and notes when bytes arrive. It owns no socket policy
//! beyond that: HTTP is hyper's business, the event loop [`super::server`]'s.
//!
//! When the table is full, a new connection is admitted by closing one that is idle (no
//! request being answered on it): first the oldest idle connection of an address holding
//! more than its share ([`Table::share`]: a quarter of the limit), else the oldest idle one
//! of any address. Only when every connection is busy is the new one answered `503`. A
//! client holding many connections thus loses its own oldest ones to each newcomer, and
//! cannot shut the others out.

use std::{
    collections::HashMap,
    io,
    net::IpAddr,
    pin::Pin,
    sync::{
        atomic::{AtomicBool, AtomicU64, Ordering},
        Arc, Mutex, MutexGuard,
    },
    task::{Context, Poll},
    time::{Duration, Instant},
};

use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    sync::Notify,
    time::Sleep,
};

/// The state of one open connection that its task and the table share.
#[derive(Debug)]
pub struct Conn {
    /// Told to close (to make room for a newcomer).
    pub evicted: Notify,
    busy: AtomicBool,
    /// Bytes read so far.
    pub bytes_in: AtomicU64,
}

impl Conn {
    /// Marks a request as being answered (or done); the connection is idle between.
    pub fn set_busy(&self, busy: bool) {
        self.busy.store(busy, Ordering::Release);
    }

    /// Whether a request is being answered.
    pub fn is_busy(&self) -> bool {
        self.busy.load(Ordering::Acquire)
    }
}

struct Entry {
    ip: IpAddr,
    since: Instant,
    conn: Arc<Conn>,
}

#[derive(Default)]
struct Inner {
    next: u64,
    open: HashMap<u64, Entry>,
    per_ip: HashMap<IpAddr, usize>,
}

impl Inner {
    fn remove(&mut self, id: u64) -> Option<Entry> {
        let e = self.open.remove(&id)?;
        if let Some(n) = self.per_ip.get_mut(&e.ip) {
            *n -= 1;
            if *n == 0 {
                self.per_ip.remove(&e.ip);
            }
        }
        Some(e)
    }
}

/// The open connections, at most `max` of them.
pub struct Table {
    inner: Mutex<Inner>,
    max: usize,
}

/// A place in the [`Table`]; given back when dropped.
pub struct Ticket {
    table: Arc<Table>,
    id: u64,
    /// The connection's shared state.
    pub conn: Arc<Conn>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.table.lock().remove(self.id);
    }
}

impl Table {
    /// A table of at most `max` connections.
    pub fn new(max: usize) -> Arc<Table> {
        Arc::new(Table {
            inner: Mutex::new(Inner::default()),
            max: max.max(1),
        })
    }

    /// The connections one address may keep when the table is full: a quarter of the limit.
    pub fn share(&self) -> usize {
        (self.max / 4).max(1)
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many connections are open.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.lock().open.len()
    }

    /// Admits a connection from `ip`, closing an idle one if the table is full (see the
    /// module doc); `None` when every open connection is busy.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Ticket> {
        let mut inner = self.lock();
        if inner.open.len() >= self.max {
            let share = self.share();
            let idle = |over: bool| {
                inner
                    .open
                    .iter()
                    .filter(|(_, e)| !e.conn.is_busy())
                    .filter(|(_, e)| !over || inner.per_ip.get(&e.ip).is_some_and(|&n| n > share))
                    .min_by_key(|(_, e)| e.since)
                    .map(|(&id, _)| id)
            };
            let victim = idle(true).or_else(|| idle(false))?;
            if let Some(e) = inner.remove(victim) {
                e.conn.evicted.notify_one();
            }
        }
        let id = inner.next;
        inner.next += 1;
        let conn = Arc::new(Conn {
            evicted: Notify::new(),
            busy: AtomicBool::new(false),
            bytes_in: AtomicU64::new(0),
        });
        inner.open.insert(
            id,
            Entry {
                ip,
                since: Instant::now(),
                conn: conn.clone(),
            },
        );
        *inner.per_ip.entry(ip).or_default() += 1;
        Some(Ticket {
            table: self.clone(),
            id,
            conn,
        })
    }

    /// Marks a connection idle again from now (it goes to the back of the eviction order).
    pub fn touch(&self, ticket: &Ticket) {
        if let Some(e) = self.lock().open.get_mut(&ticket.id) {
            e.since = Instant::now();
        }
    }
}

/// A socket that fails a write the client has not taken within `write` (a client that does
/// not read cannot hold its connection, nor the memory of its answer, for longer), and counts
/// the bytes read into [`Conn::bytes_in`].
pub struct Timed<S> {
    inner: S,
    write: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
    conn: Arc<Conn>,
}

impl<S> Timed<S> {
    /// Wraps `inner`.
    pub fn new(inner: S, write: Duration, conn: Arc<Conn>) -> Timed<S> {
        Timed {
            inner,
            write,
            stalled: None,
            conn,
        }
    }

    /// After a write made no progress: an error once the write limit has passed.
    fn stalled(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let limit = self.write;
        let sleep = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::ErrorKind::TimedOut.into())),
            Poll::Pending => Poll::Pending,
        }
    }

    fn progressed<T>(
        &mut self,
        cx: &mut Context<'_>,
        p: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match p {
            Poll::Pending => match self.stalled(cx) {
                Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
                _ => Poll::Pending,
            },
            ready => {
                self.stalled = None;
                ready
            }
        }
    }
}

use std::future::Future as _;

impl<S: AsyncRead + Unpin> AsyncRead for Timed<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let p = Pin::new(&mut self.inner).poll_read(cx, buf);
        let n = buf.filled().len() - before;
        if n > 0 {
            self.conn.bytes_in.fetch_add(n as u64, Ordering::Relaxed);
        }
        p
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Timed<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let p = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.progressed(cx, p)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let p = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.progressed(cx, p)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let p = Pin::new(&mut self.inner).poll_flush(cx);
        self.progressed(cx, p)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let p = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.progressed(cx, p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_table_closes_the_oldest_idle_connection_of_the_address_over_its_share() {
        let table = Table::new(8);
        let greedy: IpAddr = [10, 0, 0, 1].into();
        let other: IpAddr = [10, 0, 0, 2].into();
        let first_other = table.admit(other).unwrap();
        let mut greedy_held: Vec<Ticket> = (0..7).map(|_| table.admit(greedy).unwrap()).collect();
        // The oldest connection is `other`'s, but `greedy` is over its share (2 of 8).
        let newcomer = table.admit(other).unwrap();
        assert_eq!(table.len(), 8);
        assert!(greedy_held[0].conn.evicted.notified().now_or_never_ready());
        assert!(!first_other.conn.evicted.notified().now_or_never_ready());
        // Busy connections are never closed: with all busy, a newcomer is refused.
        for t in &greedy_held {
            t.conn.set_busy(true);
        }
        first_other.conn.set_busy(true);
        newcomer.conn.set_busy(true);
        assert!(table.admit(other).is_none());
        greedy_held.clear();
        assert_eq!(table.len(), 2);
    }

    trait NowOrNever {
        fn now_or_never_ready(self) -> bool;
    }

    impl<F: std::future::Future> NowOrNever for F {
        /// Whether the future is ready at its first poll.
        fn now_or_never_ready(self) -> bool {
            let waker = std::task::Waker::noop();
            let mut cx = Context::from_waker(waker);
            let mut f = std::pin::pin!(self);
            f.as_mut().poll(&mut cx).is_ready()
        }
    }
}
