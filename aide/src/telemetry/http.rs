//! The HTTP client the OTLP exporter sends through: ureq, which llm-deps
//! already builds, instead of the exporter's default reqwest (a second
//! HTTP stack in every build for one POST).

use std::time::Duration;

use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};

/// The longest a response body read back may be (the collector's answer).
const MAX_RESPONSE_BYTES: u64 = 4 << 20;

/// ureq behind `opentelemetry_http::HttpClient`.
#[derive(Debug)]
pub(crate) struct UreqClient {
    agent: ureq::Agent,
}

impl UreqClient {
    /// A client whose every request ends within the export timeout
    /// (`OTEL_EXPORTER_OTLP_TIMEOUT`, 10 s by default): a slow endpoint
    /// holds the forwarder at most that long, never a run. A status of 400
    /// and above is an answer for the exporter to read, not an error here.
    pub(crate) fn new() -> UreqClient {
        let timeout = std::env::var("OTEL_EXPORTER_OTLP_TIMEOUT")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map_or(Duration::from_secs(10), Duration::from_millis);
        let config = ureq::Agent::config_builder().http_status_as_error(false).timeout_global(Some(timeout)).build();
        UreqClient { agent: config.new_agent() }
    }
}

#[async_trait::async_trait]
impl HttpClient for UreqClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let (parts, body) = request.into_parts();
        let request = Request::from_parts(parts, body.to_vec());
        let mut response = self.agent.run(request)?;
        let body = response.body_mut().with_config().limit(MAX_RESPONSE_BYTES).read_to_vec()?;
        let (parts, _) = response.into_parts();
        Ok(Response::from_parts(parts, Bytes::from(body)))
    }
}
