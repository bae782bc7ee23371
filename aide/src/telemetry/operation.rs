//! The operation a run was, whichever way it came: `aide.operation` on its
//! span and its metrics, the MCP tool's name, which is also what `aide log
//! stats` groups by. `gen_ai.tool.name` says how it was called (`read`
//! over MCP, `llm-read` on the command line); this says what it was, so a
//! dashboard and the local log count the same tool the same.

use aide_telemetry::SpanRecord;

/// The attribute's name.
pub(crate) const OPERATION: &str = "aide.operation";

/// The catalogue operation of the run in `record`: the MCP tool it names
/// for a call through `aide mcp`, else the one its program and subcommand
/// words name (as `aide log stats` finds it from a logged command line).
pub(crate) fn of(record: &SpanRecord) -> Option<&'static str> {
    named(&record.tool, &record.tool_name, record.origin.as_deref())
}

fn named(tool: &str, tool_name: &str, origin: Option<&str>) -> Option<&'static str> {
    if origin.is_some_and(|o| o.starts_with("mcp:")) {
        return crate::catalogue::operations().find(|op| op.name == tool_name).map(|op| op.name);
    }
    let words: Vec<String> = tool_name.split(' ').skip(1).map(str::to_string).collect();
    crate::catalogue::operation_of(tool, &words).map(|op| op.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_its_mcp_tool_however_it_was_called() {
        assert_eq!(named("llm-read", "llm-read", None), Some("read"));
        assert_eq!(named("aide", "read", Some("mcp:7")), Some("read"));
        assert_eq!(named("llm-shell", "llm-shell exec", None), Some("shell_exec"));
        assert_eq!(named("aide", "no_such_tool", Some("mcp:8")), None);
    }
}
