//! A TCP proxy in front of the broker that the test can cut and restore.
//!
//! A plain TCP proxy is not enough: FindCoordinator answers with the broker's own address,
//! and the member would then bypass the proxy. This one rewrites FindCoordinator responses
//! to point at itself, so every connection of the member goes through it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use kafka_protocol::messages::{ApiKey, FindCoordinatorResponse, ResponseHeader};
use kafka_protocol::protocol::{Decodable, Encodable, HeaderVersion, StrBytes};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// The proxy; it runs until the test's runtime ends.
pub struct Proxy {
    /// `host:port` to give members as their bootstrap server.
    pub addr: String,
    cut: watch::Sender<bool>,
}

impl Proxy {
    /// Listens on a free local port and forwards to `upstream`.
    pub async fn start(upstream: String) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let local = listener.local_addr().unwrap();
        let (cut, cut_rx) = watch::channel(false);
        tokio::spawn(async move {
            loop {
                let Ok((client, _)) = listener.accept().await else { continue };
                if *cut_rx.borrow() {
                    continue; // refused: dropped at once
                }
                let upstream = upstream.clone();
                let cut_rx = cut_rx.clone();
                tokio::spawn(async move {
                    if let Ok(server) = TcpStream::connect(&upstream).await {
                        relay(client, server, local.port(), cut_rx).await;
                    }
                });
            }
        });
        Self { addr: local.to_string(), cut }
    }

    /// Closes every connection and refuses new ones.
    pub fn cut(&self) {
        self.cut.send_replace(true);
    }

    /// Accepts connections again.
    pub fn restore(&self) {
        self.cut.send_replace(false);
    }
}

async fn relay(client: TcpStream, server: TcpStream, port: u16, mut cut: watch::Receiver<bool>) {
    let pending: Arc<Mutex<HashMap<i32, i16>>> = Arc::default();
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    let up = forward(client_read, server_write, |frame| {
        // Request header: api key, api version, correlation id.
        if frame.len() >= 8
            && i16::from_be_bytes([frame[0], frame[1]]) == ApiKey::FindCoordinator as i16
        {
            let version = i16::from_be_bytes([frame[2], frame[3]]);
            let correlation = i32::from_be_bytes([frame[4], frame[5], frame[6], frame[7]]);
            pending.lock().unwrap().insert(correlation, version);
        }
        frame
    });
    let down = forward(server_read, client_write, |frame| {
        let correlation = i32::from_be_bytes([frame[0], frame[1], frame[2], frame[3]]);
        match pending.lock().unwrap().remove(&correlation) {
            Some(version) => rewrite_find_coordinator(frame, version, port),
            None => frame,
        }
    });
    tokio::select! {
        _ = up => {}
        _ = down => {}
        _ = cut.wait_for(|cut| *cut) => {}
    }
}

/// Copies frames from `from` to `to`, passing each frame's body through `edit`.
async fn forward(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    edit: impl Fn(Vec<u8>) -> Vec<u8>,
) -> std::io::Result<()> {
    loop {
        let mut len = [0u8; 4];
        from.read_exact(&mut len).await?;
        let mut frame = vec![0u8; i32::from_be_bytes(len) as usize];
        from.read_exact(&mut frame).await?;
        let frame = edit(frame);
        to.write_all(&(frame.len() as i32).to_be_bytes()).await?;
        to.write_all(&frame).await?;
    }
}

/// Points every coordinator in a FindCoordinator response at the proxy's port.
fn rewrite_find_coordinator(frame: Vec<u8>, version: i16, port: u16) -> Vec<u8> {
    let header_version = FindCoordinatorResponse::header_version(version);
    let mut buf = Bytes::from(frame);
    let header = ResponseHeader::decode(&mut buf, header_version).unwrap();
    let mut response = FindCoordinatorResponse::decode(&mut buf, version).unwrap();
    if version <= 3 {
        response.port = i32::from(port);
        response.host = StrBytes::from_static_str("127.0.0.1");
    }
    for coordinator in &mut response.coordinators {
        coordinator.port = i32::from(port);
        coordinator.host = StrBytes::from_static_str("127.0.0.1");
    }
    let mut out = Vec::new();
    header.encode(&mut out, header_version).unwrap();
    response.encode(&mut out, version).unwrap();
    out
}
