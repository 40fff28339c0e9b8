//! The TCP stream under hyper, with two bounds hyper does not keep itself:
//!
//! - A write timeout: an answer that makes no progress for that long,
//!   because the client reads nothing, fails the connection, and the answer
//!   it held is freed. Like nginx's `send_timeout`, it bounds the wait
//!   between two writes, not the whole answer.
//! - A lingering close: hyper closes a connection whose request body it did
//!   not read (an answer sent early: 413, 401, 404, ...). Closing a socket
//!   with unread bytes makes the kernel send a reset, and a client still
//!   writing its body then loses the answer it has not read yet. So, as
//!   nginx's lingering close and RFC 9112 section 9.6 do, the socket sends
//!   its end of the answer (a FIN) and reads and discards what the client
//!   still sends, up to a bound in bytes and in time, before closing.

use super::connection::Link;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};

/// The bounds of a [`Socket`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Bounds {
    /// `None`: no write timeout.
    pub write_timeout: Option<Duration>,
    /// Zero, or zero bytes: no lingering.
    pub linger: Duration,
    pub linger_bytes: u64,
}

pub(super) struct Socket {
    stream: TcpStream,
    link: Arc<Link>,
    bounds: Bounds,
    /// The write timeout's timer, kept between stalls so that it is
    /// allocated once.
    timer: Option<Pin<Box<Sleep>>>,
    /// The timer runs: the last write did not go through.
    stalled: bool,
    closing: Closing,
}

enum Closing {
    Open,
    Lingering { left: u64 },
    Closed,
}

impl Socket {
    pub(super) fn new(stream: TcpStream, link: Arc<Link>, bounds: Bounds) -> Self {
        Socket {
            stream,
            link,
            bounds,
            timer: None,
            stalled: false,
            closing: Closing::Open,
        }
    }

    /// After a write made no progress: an error once the client has read
    /// nothing for the write timeout.
    fn stalled(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let Some(timeout) = self.bounds.write_timeout else {
            return Poll::Pending;
        };
        let timer = match &mut self.timer {
            Some(timer) => {
                if !self.stalled {
                    timer.as_mut().reset(Instant::now() + timeout);
                }
                timer
            }
            None => self.timer.insert(Box::pin(tokio::time::sleep(timeout))),
        };
        self.stalled = true;
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the client read nothing of its answer for {} ms",
                    timeout.as_millis()
                ),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn wrote(
        &mut self,
        written: Poll<io::Result<usize>>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<usize>> {
        match written {
            Poll::Pending => self.stalled(cx),
            done => {
                self.stalled = false;
                if let Poll::Ready(Ok(bytes)) = done {
                    self.link.wrote(bytes);
                }
                done
            }
        }
    }

    /// Whether request bytes wait in the kernel, looked at directly rather
    /// than through tokio's readiness, which may lag.
    #[cfg(unix)]
    fn bytes_waiting(&self) -> bool {
        // A duplicate of the descriptor, for as long as the peek: the
        // socket is non-blocking, so the peek does not wait.
        std::os::fd::AsFd::as_fd(&self.stream)
            .try_clone_to_owned()
            .map(std::net::TcpStream::from)
            .and_then(|stream| stream.peek(&mut [0u8; 1]))
            .is_ok_and(|n| n > 0)
    }

    #[cfg(not(unix))]
    fn bytes_waiting(&self) -> bool {
        false
    }

    /// Reads and discards until the client's end of stream, the byte bound
    /// or the time bound, whichever comes first.
    fn poll_linger(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if let Some(timer) = &mut self.timer
            && timer.as_mut().poll(cx).is_ready()
        {
            return Poll::Ready(());
        }
        let Closing::Lingering { left } = &mut self.closing else {
            return Poll::Ready(());
        };
        let mut discard = [0u8; 16 * 1024];
        loop {
            let room = discard
                .len()
                .min(usize::try_from(*left).unwrap_or(usize::MAX));
            let mut buf = ReadBuf::new(&mut discard[..room]);
            match ready!(Pin::new(&mut self.stream).poll_read(cx, &mut buf)) {
                Ok(()) if !buf.filled().is_empty() => {
                    *left -= buf.filled().len() as u64;
                    if *left == 0 {
                        return Poll::Ready(());
                    }
                }
                // End of stream, or the client reset: nothing left to
                // protect.
                _ => return Poll::Ready(()),
            }
        }
    }
}

impl AsyncRead for Socket {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let read = Pin::new(&mut self.stream).poll_read(cx, buf);
        match read {
            Poll::Ready(Ok(())) if buf.filled().len() > before => {
                self.link.read(buf.filled().len() - before);
            }
            // Asked to close as idle: bytes the kernel holds, and tokio has
            // not seen yet, make the connection busy all the same, so a
            // request just sent is not lost to a reset.
            Poll::Pending if self.link.is_asked_to_close() && self.bytes_waiting() => {
                self.link.busy();
            }
            _ => {}
        }
        read
    }
}

impl AsyncWrite for Socket {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write(cx, data);
        self.wrote(written, cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.stream).poll_write_vectored(cx, data);
        self.wrote(written, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    /// hyper's close: the FIN goes out at once, after the whole answer;
    /// then the lingering, when the request body was left unread.
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            match self.closing {
                Closing::Open => {
                    ready!(Pin::new(&mut self.stream).poll_shutdown(cx))?;
                    let bounds = self.bounds;
                    self.closing = if !bounds.linger.is_zero()
                        && bounds.linger_bytes > 0
                        && self.link.start_lingering()
                    {
                        let until = Instant::now() + bounds.linger;
                        match &mut self.timer {
                            Some(timer) => timer.as_mut().reset(until),
                            None => self.timer = Some(Box::pin(tokio::time::sleep_until(until))),
                        }
                        Closing::Lingering {
                            left: bounds.linger_bytes,
                        }
                    } else {
                        Closing::Closed
                    };
                }
                Closing::Lingering { .. } => {
                    ready!(self.poll_linger(cx));
                    self.closing = Closing::Closed;
                }
                Closing::Closed => return Poll::Ready(Ok(())),
            }
        }
    }
}
