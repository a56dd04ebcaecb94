//! Tests of [`Connections`] over real sockets: clients that send part of a request and hold
//! it are closed after the header-read timeout while a healthy client is answered, an idle
//! keep-alive connection and a stalled body are closed after the idle timeout, and at the
//! cap new connections wait until one closes.
//!
//! Liveness is awaited with generous deadlines; the only short wait asserts that something
//! does *not* happen, which a slow machine cannot make fail.

use std::time::Duration;

use axum::routing::{get, post};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::*;

/// Far longer than any timeout here: a liveness wait that fails means a hang.
const GENEROUS: Duration = Duration::from_secs(120);

fn router() -> Router {
    Router::new()
        .route("/hello", get(|| async { "hello" }))
        .route("/echo", post(|body: String| async move { body }))
}

fn limits(header_ms: u64, idle_ms: u64, max: usize) -> RestLimits {
    RestLimits {
        header_read_timeout: Duration::from_millis(header_ms),
        idle_timeout: Duration::from_millis(idle_ms),
        max_connections: max,
    }
}

/// Serves [`router`] under `limits` on a free port.
async fn serve(limits: RestLimits) -> SocketAddr {
    let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = tcp.local_addr().unwrap();
    let run = Connections::new(limits).run(tcp, None, router(), std::future::pending());
    tokio::spawn(run);
    addr
}

/// `GET /hello` on a new connection, closed after the answer.
async fn hello(addr: SocketAddr) -> String {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await.unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).await.unwrap();
    answer
}

/// A connection that sent the request line and one header, and no more.
async fn slow(addr: SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /hello HTTP/1.1\r\nHost: x\r\n").await.unwrap();
    s
}

/// Whether the server closed `s` (end of stream or reset) within [`GENEROUS`], reading and
/// dropping whatever it sent first.
async fn closed_by_server(s: &mut TcpStream) -> bool {
    let mut buf = [0u8; 1024];
    let read_to_end = async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(GENEROUS, read_to_end).await.is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_clients_are_closed_and_a_healthy_client_is_answered_meanwhile() {
    let addr = serve(limits(500, 60_000, 256)).await;
    let mut held = Vec::new();
    for _ in 0..100 {
        held.push(slow(addr).await);
    }
    let answer = tokio::time::timeout(GENEROUS, hello(addr)).await.expect("answered");
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    assert!(answer.ends_with("hello"), "{answer}");
    for s in &mut held {
        assert!(closed_by_server(s).await, "a client that never ends its headers stays open");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_keep_alive_connections_and_stalled_bodies_are_closed() {
    let addr = serve(limits(60_000, 300, 256)).await;
    // One request answered, then nothing: the connection idles out.
    let mut idle = TcpStream::connect(addr).await.unwrap();
    idle.write_all(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    assert!(closed_by_server(&mut idle).await, "an idle keep-alive connection stays open");
    // A body announced as 10 bytes, 2 sent: the handler waits, the connection is closed.
    let mut stalled = TcpStream::connect(addr).await.unwrap();
    stalled
        .write_all(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
        .await
        .unwrap();
    assert!(closed_by_server(&mut stalled).await, "a stalled body holds the connection");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_cap_new_connections_wait_until_one_closes() {
    // Timeouts far away: only the cap acts.
    let addr = serve(limits(600_000, 600_000, 4)).await;
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(slow(addr).await);
    }
    let waiting = tokio::spawn(hello(addr));
    // Not answered while the four hold every slot (a negative check: slowness cannot fail it).
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!waiting.is_finished(), "a fifth connection was served past rest.max.connections");
    // One leaves: the waiting client gets its slot and its answer.
    drop(held.pop());
    let answer = tokio::time::timeout(GENEROUS, waiting).await.expect("answered").unwrap();
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
}
