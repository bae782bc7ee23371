//! What a wait or a read of logs left out, and how to get it, in the
//! caller's words (`llm-jobs logs 3 --max-output-bytes N` on the command
//! line, `jobs_logs {"id":3,"max_output_bytes":N}` over MCP): one function
//! per hint.

use aide_core::operation::{Operation, named};
use aide_core::voice::{Given, Voice};

use crate::request::Stream;

const LOGS: &Operation = named(crate::operations::OPERATIONS, "jobs_logs");
const RESUME: &Operation = named(crate::operations::OPERATIONS, "jobs_resume");

/// The stream argument, when it is not the default (both).
fn stream_arg(stream: Stream) -> Option<Given<'static>> {
    let name = match stream {
        Stream::Stdout => "stdout",
        Stream::Stderr => "stderr",
        Stream::Both => return None,
    };
    Some(Given::flag("stream", name))
}

/// A waited job's stream shown as its last `shown` of `total` bytes.
pub(crate) fn wait_tail(v: Voice, job: i64, stream: Stream, shown: usize, total: u64) -> String {
    let mut args = vec![Given::positional("id", job)];
    args.extend(stream_arg(stream));
    args.push(Given::flag("max_output_bytes", total));
    format!("last {shown} of {total} bytes; {} reads all", v.call(LOGS, &args))
}

/// Logs that left out the `left_out` bytes before `start`.
pub(crate) fn logs_before(v: Voice, job: i64, stream: Stream, left_out: u64, start: u64) -> String {
    let mut args = vec![Given::positional("id", job)];
    args.extend(stream_arg(stream));
    args.push(Given::flag("since_offset", start - left_out));
    args.push(Given::flag("max_output_bytes", left_out));
    format!("[{left_out} earlier bytes left out; {} reads them]", v.call(LOGS, &args))
}

/// Logs that stopped at `next`, `left_out` bytes before the stream's end.
pub(crate) fn logs_after(v: Voice, job: i64, stream: Stream, left_out: u64, next: u64) -> String {
    let mut args = vec![Given::positional("id", job)];
    args.extend(stream_arg(stream));
    args.push(Given::flag("since_offset", next));
    format!("[{left_out} more bytes; {} continues]", v.call(LOGS, &args))
}

/// A wait that timed out while waited jobs were paused: they will not end
/// until resumed.
pub(crate) fn paused_waited(v: Voice, paused: &[i64]) -> String {
    let ids: Vec<String> = paused.iter().map(|id| format!("#{id}")).collect();
    let first = paused.first().copied().unwrap_or_default();
    let resume = v.call(RESUME, &[Given::positional("id", first)]);
    let (what, verb) = if paused.len() == 1 { ("job", "is") } else { ("jobs", "are") };
    format!("[wait timed out; {what} {} {verb} paused and will not end until resumed ({resume})]", ids.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_name_flags_on_the_command_line_and_arguments_over_mcp() {
        assert_eq!(
            wait_tail(Voice::Cli, 3, Stream::Stdout, 900, 18034),
            "last 900 of 18034 bytes; llm-jobs logs 3 --stream stdout --max-output-bytes 18034 reads all"
        );
        assert_eq!(
            wait_tail(Voice::Mcp, 3, Stream::Stderr, 900, 18034),
            r#"last 900 of 18034 bytes; jobs_logs {"id":3,"stream":"stderr","max_output_bytes":18034} reads all"#
        );
        assert_eq!(
            logs_before(Voice::Mcp, 3, Stream::Both, 5000, 5000),
            r#"[5000 earlier bytes left out; jobs_logs {"id":3,"since_offset":0,"max_output_bytes":5000} reads them]"#
        );
        assert_eq!(
            logs_after(Voice::Cli, 3, Stream::Both, 7, 2000),
            "[7 more bytes; llm-jobs logs 3 --since-offset 2000 continues]"
        );
    }

    #[test]
    fn a_wait_on_paused_jobs_says_what_resumes_them() {
        assert_eq!(
            paused_waited(Voice::Cli, &[4]),
            "[wait timed out; job #4 is paused and will not end until resumed (llm-jobs resume 4)]"
        );
        assert_eq!(
            paused_waited(Voice::Mcp, &[4, 6]),
            r#"[wait timed out; jobs #4 #6 are paused and will not end until resumed (jobs_resume {"id":4})]"#
        );
    }
}
