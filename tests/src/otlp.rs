//! A minimal OTLP/HTTP receiver for the telemetry tests: it accepts every
//! POST with `200 OK` (an empty protobuf answer, which exporters read as
//! full success) and keeps each request's path, headers and body, so a
//! test can say which endpoint got which run's span with which
//! credentials, and read what was sent with the protocol's own message
//! types (`opentelemetry-proto`): metrics, which Phoenix does not take.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

/// One request received.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    /// Header names in lowercase.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Whether the body holds `text` (an attribute's string value).
    pub fn mentions(&self, text: &str) -> bool {
        self.body.windows(text.len()).any(|w| w == text.as_bytes())
    }
}

/// A receiver on a free port of 127.0.0.1, answering until the test ends.
pub struct OtlpSink {
    pub port: u16,
    received: Arc<Mutex<Vec<Received>>>,
}

impl OtlpSink {
    pub fn start() -> OtlpSink {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = listener.local_addr().expect("its address").port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&received);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                if let Some(request) = answer(stream) {
                    kept.lock().unwrap_or_else(|e| e.into_inner()).push(request);
                }
            }
        });
        OtlpSink { port, received }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The requests received so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The requests to `path` (`/v1/traces`, `/v1/metrics`) so far.
    pub fn to(&self, path: &str) -> Vec<Received> {
        self.received().into_iter().filter(|r| r.path == path).collect()
    }

    /// Every data point of the metric `name` received so far, in order:
    /// its attributes (string values), its series' start (a new exporter
    /// starts cumulative sums again) and its value (a sum's, or a
    /// histogram's count).
    pub fn points(&self, name: &str) -> Vec<Point> {
        use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
        use opentelemetry_proto::tonic::metrics::v1::{metric::Data, number_data_point::Value};
        use prost::Message;
        let mut points = Vec::new();
        for request in self.to("/v1/metrics") {
            let Ok(decoded) = ExportMetricsServiceRequest::decode(request.body.as_slice()) else { continue };
            let metrics = decoded.resource_metrics.into_iter().flat_map(|r| r.scope_metrics).flat_map(|s| s.metrics);
            for metric in metrics.filter(|m| m.name == name) {
                match metric.data {
                    Some(Data::Sum(sum)) => points.extend(sum.data_points.into_iter().map(|p| {
                        let value = match p.value {
                            Some(Value::AsInt(i)) => i as f64,
                            Some(Value::AsDouble(d)) => d,
                            None => 0.0,
                        };
                        Point { attributes: strings(&p.attributes), start: p.start_time_unix_nano, value }
                    })),
                    Some(Data::Histogram(h)) => points.extend(h.data_points.into_iter().map(|p| Point {
                        attributes: strings(&p.attributes),
                        start: p.start_time_unix_nano,
                        value: p.count as f64,
                    })),
                    _ => {}
                }
            }
        }
        points
    }

    /// The service name of every resource whose spans were received.
    pub fn span_services(&self) -> Vec<String> {
        use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
        use prost::Message;
        self.to("/v1/traces")
            .iter()
            .filter_map(|r| ExportTraceServiceRequest::decode(r.body.as_slice()).ok())
            .flat_map(|d| d.resource_spans)
            .filter_map(|r| r.resource)
            .filter_map(|r| strings(&r.attributes).into_iter().find(|(k, _)| k == "service.name").map(|(_, v)| v))
            .collect()
    }
}

/// One data point of a metric.
#[derive(Debug, Clone)]
pub struct Point {
    pub attributes: Vec<(String, String)>,
    pub start: u64,
    pub value: f64,
}

impl Point {
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

/// The total of cumulative points: the last (largest) value of each series
/// (its attributes and start), summed.
pub fn cumulative_total(points: &[Point]) -> f64 {
    let mut last: std::collections::BTreeMap<(Vec<(String, String)>, u64), f64> = Default::default();
    for p in points {
        let value = last.entry((p.attributes.clone(), p.start)).or_insert(0.0);
        *value = value.max(p.value);
    }
    last.values().sum()
}

/// The attributes with string values, as (key, value).
fn strings(attributes: &[opentelemetry_proto::tonic::common::v1::KeyValue]) -> Vec<(String, String)> {
    use opentelemetry_proto::tonic::common::v1::any_value::Value;
    attributes
        .iter()
        .filter_map(|kv| match kv.value.as_ref()?.value.as_ref()? {
            Value::StringValue(s) => Some((kv.key.clone(), s.clone())),
            _ => None,
        })
        .collect()
}

/// Reads one HTTP/1.1 request (a body of Content-Length bytes) and answers
/// 200 with an empty body, closing the connection.
fn answer(stream: std::net::TcpStream) -> Option<Received> {
    stream.set_read_timeout(Some(std::time::Duration::from_secs(30))).ok()?;
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let length: usize = headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse().ok())?;
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let mut stream = stream;
    let _ = stream.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    );
    Some(Received { path, headers, body })
}
