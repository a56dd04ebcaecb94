//! [`Wasi`]: a request over `wasi:http/outgoing-handler`. The worker opens the connection
//! (TLS included) and answers `HTTP-request-denied` for an origin the config does not
//! grant. Blocking: each call waits on the request's pollables.

use std::time::Duration;

use wasip2::http::outgoing_handler;
use wasip2::http::types::{
    ErrorCode, Fields, IncomingBody, Method, OutgoingBody, OutgoingRequest, RequestOptions, Scheme,
};
use wasip2::io::streams::StreamError;

use super::{Failure, Request, Response, Transport};

/// The start of a response body kept for messages.
const BODY_KEPT: usize = 512;

/// Requests through the host.
pub struct Wasi;

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

fn failure(e: ErrorCode) -> Failure {
    let text = format!("{e:?}");
    match e {
        ErrorCode::HttpRequestDenied => Failure::Denied(text),
        ErrorCode::ConnectionTimeout
        | ErrorCode::ConnectionReadTimeout
        | ErrorCode::ConnectionWriteTimeout
        | ErrorCode::HttpResponseTimeout
        | ErrorCode::DnsTimeout => Failure::Timeout(text),
        ErrorCode::HttpRequestMethodInvalid
        | ErrorCode::HttpRequestUriInvalid
        | ErrorCode::HttpRequestUriTooLong
        | ErrorCode::HttpRequestHeaderSize(_)
        | ErrorCode::HttpRequestHeaderSectionSize(_) => Failure::Invalid(text),
        _ => Failure::Unreachable(text),
    }
}

fn method(name: &str) -> Method {
    match name {
        "POST" => Method::Post,
        "PUT" => Method::Put,
        "PATCH" => Method::Patch,
        "DELETE" => Method::Delete,
        "GET" => Method::Get,
        other => Method::Other(other.to_owned()),
    }
}

fn write_all(body: &OutgoingBody, bytes: &[u8]) -> Result<(), Failure> {
    let broken = |e: StreamError| Failure::Unreachable(format!("writing the body: {e:?}"));
    let out = body.write().map_err(|()| Failure::Invalid("the body is already taken".into()))?;
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = out.check_write().map_err(broken)?;
        if n == 0 {
            out.subscribe().block();
            continue;
        }
        let len = rest.len().min(usize::try_from(n).unwrap_or(usize::MAX));
        out.write(&rest[..len]).map_err(broken)?;
        rest = &rest[len..];
    }
    out.blocking_flush().map_err(broken)
}

impl Transport for Wasi {
    fn send(&mut self, request: &Request<'_>) -> Result<Response, Failure> {
        let invalid = |what: &str| Failure::Invalid(what.to_owned());
        let mut entries: Vec<(String, Vec<u8>)> =
            request.headers.iter().map(|(k, v)| (k.clone(), v.clone().into_bytes())).collect();
        entries.push(("content-length".into(), request.body.len().to_string().into_bytes()));
        let headers = Fields::from_list(&entries)
            .map_err(|e| Failure::Invalid(format!("bad header: {e:?}")))?;
        let req = OutgoingRequest::new(headers);
        req.set_method(&method(request.method)).map_err(|()| invalid("bad method"))?;
        let scheme = if request.url.https { Scheme::Https } else { Scheme::Http };
        req.set_scheme(Some(&scheme)).map_err(|()| invalid("bad scheme"))?;
        req.set_authority(Some(&request.url.authority)).map_err(|()| invalid("bad host"))?;
        req.set_path_with_query(Some(&request.url.path)).map_err(|()| invalid("bad path"))?;
        let options = RequestOptions::new();
        let _ = options.set_connect_timeout(Some(nanos(request.connect_timeout)));
        let _ = options.set_first_byte_timeout(Some(nanos(request.request_timeout)));
        let _ = options.set_between_bytes_timeout(Some(nanos(request.request_timeout)));
        let body = req.body().map_err(|()| invalid("no body"))?;
        let pending = outgoing_handler::handle(req, Some(options)).map_err(failure)?;
        // A request the host refused (or could not send) stops taking its body: the
        // response future then tells why, which matters more than the broken write.
        let written = write_all(&body, request.body)
            .and_then(|()| OutgoingBody::finish(body, None).map_err(failure));
        pending.subscribe().block();
        let response = match pending.get() {
            Some(Ok(Ok(response))) => response,
            Some(Ok(Err(e))) => return Err(failure(e)),
            Some(Err(())) | None => {
                return Err(written.err().unwrap_or(Failure::Unreachable("no response".into())));
            }
        };
        let status = response.status();
        let location = response
            .headers()
            .get("location")
            .into_iter()
            .next()
            .map(|v| String::from_utf8_lossy(&v).into_owned());
        let mut kept = Vec::new();
        if let Ok(incoming) = response.consume() {
            if let Ok(stream) = incoming.stream() {
                loop {
                    match stream.blocking_read(64 * 1024) {
                        Ok(chunk) if kept.len() < BODY_KEPT => kept.extend(chunk),
                        Ok(_) => {}
                        Err(StreamError::Closed) => break,
                        Err(e) => return Err(failure_of_stream(e)),
                    }
                }
            }
            let _ = IncomingBody::finish(incoming);
        }
        kept.truncate(BODY_KEPT);
        Ok(Response { status, location, body: String::from_utf8_lossy(&kept).into_owned() })
    }

    fn sleep(&mut self, duration: Duration) {
        wasip2::clocks::monotonic_clock::subscribe_duration(nanos(duration)).block();
    }
}

fn failure_of_stream(e: StreamError) -> Failure {
    match e {
        StreamError::LastOperationFailed(err) => {
            let text = err.to_debug_string();
            match wasip2::http::types::http_error_code(&err) {
                Some(code) => failure(code),
                None => Failure::Unreachable(text),
            }
        }
        StreamError::Closed => Failure::Unreachable("the response ended early".into()),
    }
}
