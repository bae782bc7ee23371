//! Each refusal as the contract says it: its code, its hint in the
//! caller's words, and its details.

use super::*;

/// What to do when the action asked for is not offered, from what the
/// server did offer there: an extract the server offers for other text is
/// a matter of selection; one it offers nowhere here is not.
fn not_offered_hint(action: &str, several: bool, offered: &[OfferedAction]) -> Phrase {
    if several {
        return say(|v| format!("give {}, one of details.offered's titles, to pick one", v.arg("title")));
    }
    let names: Vec<&str> = offered.iter().map(|a| a.action.as_str()).collect();
    let is_extract = |name: &str| name.starts_with("extract");
    let reselect = "an extract needs a whole expression or whole statements selected";
    let hint = match (names.is_empty(), is_extract(action), names.iter().any(|n| is_extract(n))) {
        (true, true, _) => format!("the server offers nothing at this place ({reselect})"),
        (true, false, _) => "the server offers nothing at this place: try another place".to_string(),
        (false, true, true) => {
            format!("the server offers {} here, not `{action}`: select other text ({reselect})", names.join(", "))
        }
        (false, _, _) => format!(
            "the server offers only {} here: pick one of those (details.offered), or another place",
            names.join(", ")
        ),
    };
    hint.into()
}

pub(crate) fn join_lines(lines: &[usize]) -> String {
    lines.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
}

/// The hint for an ambiguous block, in the file's own terms: their kinds
/// and parents' names where they differ, and their lines.
fn pick_one_hint(candidates: &[BlockCandidate]) -> String {
    fn distinct<'a>(all: impl Iterator<Item = &'a str>) -> Vec<String> {
        let mut seen: Vec<&str> = Vec::new();
        for one in all {
            if !seen.contains(&one) {
                seen.push(one);
            }
        }
        if seen.len() < 2 { Vec::new() } else { seen.iter().map(|s| format!("`{s}`")).collect() }
    }
    let kinds = distinct(candidates.iter().map(|c| c.kind.name()));
    let parents = distinct(candidates.iter().filter_map(|c| c.parent.as_deref()));
    let lines = join_lines(&candidates.iter().map(|c| c.line).collect::<Vec<_>>());
    let mut ways: Vec<String> = Vec::new();
    if !kinds.is_empty() {
        ways.push(format!("kind (one of {})", kinds.join(", ")));
    }
    if !parents.is_empty() {
        ways.push(format!("module_path (one of {})", parents.join(", ")));
    }
    ways.push(format!("line_hint (one of {lines})"));
    let last = ways.pop().unwrap_or_default();
    match ways.is_empty() {
        true => format!("add {last} to pick one"),
        false => format!("add {} or {last} to pick one", ways.join(", ")),
    }
}

impl From<TransformError> for AideError {
    // Long because: one arm per error variant, each its code, hint and details; read top to bottom.
    fn from(e: TransformError) -> AideError {
        use TransformError as E;
        let message = e.to_string();
        let error = |c| AideError::new(c, message.clone());
        match e {
            E::CheckerFailedBefore { checker, details, .. } => error(code::CHECKER_FAILED)
                .with_hint(say(|v| {
                    format!(
                        "an edit is verified by checkers that work on the tree as it is: make {checker} run, or name the others in {}",
                        v.arg("verify")
                    )
                }))
                .with_details(details),
            E::VerificationFailed { details, .. } => error(code::VERIFICATION_FAILED)
                .with_hint(
                    "nothing remains changed: fix the edit (details.new_findings and details.failing say what it broke) and send it again",
                )
                .with_details(details),
            E::VerifyCommandFailed { details, .. } => error(code::VERIFICATION_FAILED)
                .with_hint("nothing remains changed: see details for the command's output; a verify command only reads")
                .with_details(details),
            E::PatchUnreadable { line, .. } => error(code::INVALID_REQUEST)
                .with_hint("give a unified diff (git diff) or a *** Begin Patch … *** End Patch patch")
                .with_details(json!({ "field": "patch", "line": line })),
            E::PatchUnsupported { line, .. } => error(code::INVALID_REQUEST)
                .with_hint(
                    "binary changes, copies and changes to links or submodules are not applied by a patch: leave them \
                     out (a copy: add its new file as a new file)",
                )
                .with_details(json!({ "field": "patch", "line": line })),
            E::EditsFile { .. } => error(code::INVALID_REQUEST).with_hint(
                "the edits file is {\"edits\": [{\"byte_start\", \"byte_end\", \"replacement\", \"checksum_before\"}], \"operations\": [...]}",
            ),
            E::NothingToDo => error(code::INVALID_ARGUMENTS).with_hint(say(|v| match v {
                Voice::Cli => "llm-transform --file PATH --edits EDITS.json, or --request with edits/operations".into(),
                Voice::Mcp => "give operations (or edits with a path each)".into(),
            })),
            E::PatchHunk { path, hunk, candidates, nearest, .. } => {
                let code = if candidates.is_empty() { code::NO_MATCH } else { code::AMBIGUOUS };
                let nearest: Vec<_> = nearest.iter().map(|(line, text)| json!({ "line": line, "text": text })).collect();
                error(code)
                    .with_hint("read the file again and make the hunk's context lines match it exactly (once); nothing was written")
                    .with_details(json!({ "path": path, "hunk": hunk, "candidates": candidates, "nearest": nearest }))
            }
            E::PatchAddsExisting { path } => error(code::CONFLICT)
                .with_hint("update the file instead (its hunks against what is there), or delete it first")
                .with_details(json!({ "path": path })),
            E::PatchMissingFile { path } | E::PatchDeleteDiffers { path } => error(code::NO_MATCH)
                .with_hint("the tree is not the one the patch was made on: read it again")
                .with_details(json!({ "path": path })),
            E::PatchNotText { path } => error(code::INVALID_REQUEST)
                .with_hint("edit it with span edits, or write it whole")
                .with_details(json!({ "path": path })),
            E::LinesUnguarded { .. } => error(code::INVALID_REQUEST).with_hint(
                say(|v| format!("give the file's checksum_before ({}'s `checksum`), or expected_old_text for the lines replaced", read(v))),
            ),
            E::BadLineRange { .. } => {
                error(code::INVALID_REQUEST).with_hint("lines are \"A:B\" (1-based, inclusive) or \"A\" for one line")
            }
            E::LinesOutOfRange { path, line_count, checksum, .. } => error(code::INVALID_SPAN)
                .with_hint("read the file again (its lines moved) and give lines inside it")
                .with_details(json!({ "path": path, "line_count": line_count, "checksum": checksum })),
            E::LinesDiffer { path, actual, checksum, .. } => error(code::NO_MATCH)
                .with_hint("the lines changed since they were read: read them again")
                .with_details(json!({ "path": path, "actual_text": actual, "checksum": checksum })),
            E::EditWithoutPath { .. } => {
                error(code::INVALID_REQUEST).with_hint(say(|v| format!("give {}, or a `path` in each edit", v.arg("path"))))
            }
            E::EditWithoutChecksum { .. } => error(code::INVALID_REQUEST)
                .with_hint(say(|v| format!("span edits need the file's SHA-256 ({}'s `checksum`) to refuse stale offsets", read(v)))),
            E::OperationField { .. } => error(code::INVALID_REQUEST)
                .with_hint("replace_block takes new_block; insert_after_block and insert_before_block take snippet"),
            E::EmptyOldText => error(code::INVALID_REQUEST)
                .with_hint("give the exact text to replace; to insert, use insert_after_block or a span edit"),
            E::InvalidRegex { pattern, .. } => error(code::INVALID_PATTERN)
                .with_hint("escape regex metacharacters with \\, or set fixed_strings: true to replace the text literally")
                .with_details(json!({ "pattern": pattern })),
            E::NoMatches { .. } => error(code::INVALID_REQUEST)
                .with_hint(say(|v| format!("pass the records of a search ({}) as `matches`", searches(v)))),
            E::MatchRecord { index, .. } => error(code::INVALID_REQUEST)
                .with_hint(say(|v| format!("each match needs path, byte_start, byte_end and checksum, as {} give them", searches(v))))
                .with_details(json!({ "index": index })),
            E::MatchWithoutChecksum { index } => error(code::INVALID_REQUEST)
                .with_hint(say(|v| format!("search again with this version of {}: every record carries its file's checksum", searches(v))))
                .with_details(json!({ "index": index })),
            E::MatchesDocument { .. } => error(code::INVALID_REQUEST)
                .with_hint(say(|v| match v {
                    Voice::Cli => "pass what llm-search --json or llm-ast-search --json printed (a file, or - for stdin)".into(),
                    Voice::Mcp => format!("pass the records {} gave as `matches`", searches(v)),
                })),
            E::MatchesWithoutReplacement => error(code::INVALID_ARGUMENTS)
                .with_hint(say(|v| format!("add {} ($0 is the match, $1 or ${{name}} a capture)", v.arg_is("replacement", "TEMPLATE")))),
            E::UnknownCapture { available, .. } => error(code::INVALID_REQUEST)
                .with_hint(format!("use one of the query's captures: {}", available.iter().map(|n| format!("${{{n}}}")).collect::<Vec<_>>().join(", ")))
                .with_details(json!({ "available": available })),
            E::NoWidestCapture { path, captures } => error(code::INVALID_REQUEST)
                .with_hint("name the capture to replace with `replace`, or capture the whole match (e.g. `(…) @match`)")
                .with_details(json!({ "path": path, "captures": captures })),
            E::InvalidNewName { .. } => error(code::INVALID_ARGUMENTS)
                .with_hint("a new name is one identifier: letters, digits and `_`, not starting with a digit"),
            E::OverlappingEdits { path, first, second } => error(code::OVERLAPPING_EDITS)
                .with_hint("narrow the pattern or query so matches do not nest, or make the edits in two requests")
                .with_details(json!({ "path": path, "first": first, "second": second })),
            E::TooManyReplacements { index, count, max, .. } => error(code::TOO_MANY_REPLACEMENTS)
                .with_hint(say(|v| format!("check the scope with {}, then narrow it (glob, type) or raise max_replacements", v.on("dry_run"))))
                .with_details(json!({ "index": index, "count": count, "max": max })),
            E::GrowthBound { index, op, path, would, bound } => error(code::INVALID_ARGUMENTS)
                .with_hint(format!(
                    "a transform may add at most {bound} bytes to its files (8 × what it read, 64 MiB at least, AIDE_TRANSFORM_MAX_GROWTH's cap at most): operation {index} passes it; split the request or narrow the operation"
                ))
                .with_details(json!({ "index": index, "op": op, "path": path, "would_add": would, "bound": bound })),
            E::NoDefinition { name } => error(code::NOT_FOUND)
                .with_hint(say(|v| format!("check the name with {}", v.call(AST_SEARCH, &[Given::flag("definitions", "NAME")]))))
                .with_details(json!({ "name": name })),
            E::AmbiguousDefinition { name, candidates } => error(code::AMBIGUOUS)
                .with_hint("give a name path (e.g. `Type/method`), `path` or `line_hint` to pick one")
                .with_details(json!({ "name": name, "candidates": candidates })),
            E::NameCollision { name_path, new_name, path, line } => error(code::NAME_COLLISION)
                .with_hint("pick another new_name, or rename the existing one first")
                .with_details(json!({ "name_path": name_path, "new_name": new_name, "path": path, "line": line })),
            E::TrailingSlash { path } => error(code::INVALID_ARGUMENTS)
                .with_hint("name the file itself, without the trailing `/`")
                .with_details(json!({ "path": path })),
            E::SpanTargetMissing { .. } => error(code::NOT_FOUND)
                .with_hint("span edits change existing files; create one with a `write` operation"),
            E::Missing { .. } => error(code::NOT_FOUND)
                .with_hint(say(|v| format!("check the path (relative to {}); create files with a `write` operation", v.arg("root")))),
            E::FolderMissing { .. } => error(code::NOT_FOUND).with_hint("set create_dirs: true to create it"),
            E::NotAFilePath { .. } => error(code::NOT_A_REGULAR_FILE).with_hint(say(|v| format!("name a file inside {}", v.arg("root")))),
            E::ChecksumMismatch { path, expected, current } => error(code::CHECKSUM_MISMATCH)
                .with_hint(say(|v| format!("read the file again ({}) and redo the edit against its current content", read(v))))
                .with_details(json!({ "path": path, "expected": expected, "current": current })),
            E::InvalidSpan { path, current, size, .. } => error(code::INVALID_SPAN)
                .with_hint(say(|v| format!("spans are byte offsets into the file as {} reports them: read it again", read(v))))
                .with_details(json!({ "path": path, "current": current, "size": size })),
            E::OverwriteWithoutChecksum { .. } => error(code::CONFLICT)
                .with_hint(say(|v| format!("give checksum_before ({}'s `checksum`) to overwrite, so nothing unseen is lost", read(v)))),
            E::RenameTargetExists { .. } => {
                error(code::CONFLICT).with_hint("delete the destination first, or pick another name")
            }
            E::UnresolvedSites { sites, server, .. } if !server.is_empty() => error(code::UNRESOLVED_SITES)
                .with_hint(say(|v| format!("look at each ({}); then pass include_unresolved to rename them too or skip_unresolved to leave them; no language server decided (see details.diagnostics)", v.call(AST_SEARCH, &[Given::flag("references", "NAME")]))))
                .with_details(json!({ "sites": sites, "engine": "syntax", "diagnostics": server })),
            E::UnresolvedSites { sites, .. } => error(code::UNRESOLVED_SITES)
                .with_hint(say(|v| format!("look at each ({}); then pass include_unresolved to rename them too, skip_unresolved to leave them, or engine: lsp to let the language server decide", v.call(AST_SEARCH, &[Given::flag("references", "NAME")]))))
                .with_details(json!({ "sites": sites, "engine": "syntax" })),
            E::ServerLeftSites { sites, .. } => error(code::UNRESOLVED_SITES)
                .with_hint("the language server left these out: files it has not loaded, or that its configuration excludes (pyrightconfig.json's exclude, a file outside every tsconfig); pass include_unresolved to rename them too, skip_unresolved to leave them, or engine: syntax")
                .with_details(json!({ "sites": sites, "engine": "lsp" })),
            E::ServerUnavailable { path, variable, .. } => error(code::SERVER_UNAVAILABLE)
                .with_hint(format!("install the language's server (on PATH), or name one in {variable}"))
                .with_details(json!({ "path": path, "variable": variable })),
            E::ServerFailed { server, .. } => error(code::SERVER_FAILED)
                .with_hint("run it again (a server still loading the project answers once it has; AIDE_LSP_READY_TIMEOUT waits longer)")
                .with_details(json!({ "server": server })),
            E::NotOffered { server, action, title, several, place, offered } => error(code::NOT_OFFERED)
                .with_hint(not_offered_hint(&action, several, &offered))
                .with_details(json!({ "server": server, "action": action, "title": title, "place": place, "offered": offered })),
            E::NewNameInvalid { name } => error(code::INVALID_ARGUMENTS)
                .with_hint(say(|v| format!("give {} a name of letters, digits and _, not starting with a digit", v.arg("new_name"))))
                .with_details(json!({ "field": "new_name", "given": name })),
            E::NewNameTaken { path, name } => error(code::CONFLICT)
                .with_hint(say(|v| format!("pick a {} the file does not use yet", v.arg("new_name"))))
                .with_details(json!({ "field": "new_name", "path": path, "name": name })),
            E::NewNameNotExact { path, introduced, .. } => error(code::NOT_OFFERED)
                .with_hint(say(|v| format!("run it without {}, then rename what it made with rename_symbol", v.arg("new_name"))))
                .with_details(json!({ "field": "new_name", "path": path, "introduced": introduced })),
            E::RefactorLanguage { path } => error(code::UNKNOWN_LANGUAGE)
                .with_hint("refactors come from the language's server: C, C++, Python, TypeScript, JavaScript, Rust, Go or Java files")
                .with_details(json!({ "path": path })),
            E::InvalidRange { path, .. } => error(code::INVALID_ARGUMENTS)
                .with_hint(say(|v| format!("{}, {}, {} and {} are 1-based; columns count characters, the end is exclusive", v.arg("line"), v.arg("column"), v.arg("end_line"), v.arg("end_column"))))
                .with_details(json!({ "path": path })),
            E::DirectoryNotRecursive { path } => error(code::INVALID_ARGUMENTS)
                .with_hint(say(|v| format!("add \"recursive\": true with its expected_tree_checksum ({} of the directory gives it)", read(v))))
                .with_details(json!({ "path": path, "kind": "directory" })),
            E::TreeUnguarded { path, current } => error(code::CONFLICT)
                .with_hint(say(|v| format!("pass \"expected_tree_checksum\": \"{current}\" if the tree is as you last saw it ({} {path}), or \"force\": true", read(v))))
                .with_details(json!({ "path": path, "current": current })),
            E::TreeChecksumMismatch { path, expected, current } => error(code::CHECKSUM_MISMATCH)
                .with_hint(say(|v| format!("read the directory again ({} {path}): what is in it changed", read(v))))
                .with_details(json!({ "path": path, "expected": expected, "current": current })),
            E::TargetExists { to, .. } => error(code::CONFLICT)
                .with_hint("delete the destination first (in the same request), or pick another name; a file copy takes overwrite with its checksum_before")
                .with_details(json!({ "path": to })),
            E::IntoItself { .. } => error(code::INVALID_ARGUMENTS).with_hint("pick a destination outside the directory"),
            E::NotADirectory { path } => error(code::CONFLICT)
                .with_hint("delete or rename the file first, or pick another name")
                .with_details(json!({ "path": path })),
            E::DirectoryHere { path, .. } => error(code::NOT_A_REGULAR_FILE)
                .with_hint("name a file; directories are taken by mkdir, copy, rename and delete (recursive)")
                .with_details(json!({ "path": path, "kind": "directory" })),
            E::ReadOnly { path } => error(code::PERMISSION_DENIED)
                .with_hint(say(|v| format!("pass {} to change it anyway (it stays read-only)", v.on("allow_read_only"))))
                .with_details(json!({ "path": path })),
            E::NoMatch { path, near_miss, checksum } => {
                let hint = match &near_miss {
                    Some(m) if m.whitespace_only => format!(
                        "the text at line {} differs only in whitespace; copy it exactly (or set fuzzy: true)",
                        m.line
                    ),
                    Some(m) => format!("the closest text is at line {} (see details.near_miss.diff)", m.line),
                    None => format!("read the file again ({}) and copy old_text exactly", read(Voice::Cli)),
                };
                let hint = match &near_miss {
                    None => say(|v| format!("read the file again ({}) and copy old_text exactly", read(v))),
                    Some(_) => hint.into(),
                };
                error(code::NO_MATCH).with_hint(hint).with_details(
                    json!({ "path": path, "count": 0, "near_miss": near_miss, "checksum": checksum }),
                )
            }
            E::AmbiguousText { path, count, lines } => error(code::AMBIGUOUS)
                .with_hint("add surrounding lines to old_text so it matches once, or set replace_all: true")
                .with_details(json!({ "path": path, "count": count, "lines": lines })),
            E::UnknownLanguage { .. } => error(code::UNKNOWN_LANGUAGE).with_hint(
                "block operations work on rust, python, typescript, tsx, javascript, c, cpp, java and go files; use patch otherwise",
            ),
            E::NoBlock { path, similar, .. } => error(code::NO_MATCH)
                .with_hint(say(|v| format!("list the file's symbols with {} and give one's name path as it prints it (`impl Agent/run`)", v.call(AST_SEARCH, &[Given::positional("paths", "PATH")]))))
                .with_details(json!({ "path": path, "similar": similar })),
            E::NoBody { path, name_path } => error(code::NO_MATCH)
                .with_hint("replace the whole declaration with replace_block")
                .with_details(json!({ "path": path, "name_path": name_path })),
            E::NoWithin { path, similar, .. } => error(code::NO_MATCH)
                .with_hint(say(|v| format!("name the symbol by its name path, as {} prints it (`Agent/run`)", v.call(AST_SEARCH, &[Given::flag("symbols", true)]))))
                .with_details(json!({ "path": path, "similar": similar })),
            E::AmbiguousBlock { path, candidates, .. } => error(code::AMBIGUOUS)
                .with_hint(pick_one_hint(&candidates))
                .with_details(json!({ "path": path, "candidates": candidates })),
            E::BlockHashMismatch { path, expected, current, line, .. } => error(code::CHECKSUM_MISMATCH)
                .with_hint("read the block again and redo the edit")
                .with_details(json!({ "path": path, "expected": expected, "current": current, "line": line })),
            E::BlockTextMismatch { path, current, line, .. } => error(code::CHECKSUM_MISMATCH)
                .with_hint("read the block again and redo the edit")
                .with_details(json!({ "path": path, "current": current, "line": line })),
            E::NewSyntaxErrors { path, errors } => error(code::NEW_SYNTAX_ERRORS)
                .with_hint(say(|v| format!("fix the new text, or pass {} to write it anyway", v.on("allow_syntax_errors"))))
                .with_details(json!({ "path": path, "errors": errors })),
            E::PythonCompile { path, line, message } => error(code::NEW_SYNTAX_ERRORS)
                .with_hint(say(|v| format!("fix the new text (indentation?), or pass {} to write it anyway", v.on("allow_syntax_errors"))))
                .with_details(json!({ "path": path, "errors": [{ "kind": "python_compile", "message": message, "line": line }] })),
            E::Locked { path } => error(code::CONFLICT)
                .with_hint("wait for it to finish, read the file again, and retry")
                .with_details(json!({ "path": path })),
            E::ChangedMeanwhile { path } => error(code::CONFLICT)
                .with_hint("read the file again and redo the edit against its current content")
                .with_details(json!({ "path": path })),
            E::WriteFailed { path, restore_failures, .. } => {
                let error = error(code::IO_ERROR)
                    .with_hint("check the free space and the folder's permissions, then retry");
                match restore_failures {
                    None => error.with_details(json!({ "path": path })),
                    Some(failures) => error.with_details(json!({ "path": path, "restore_failures": failures })),
                }
            }
            E::QueryTooDeep { .. } => error(code::INPUT_TOO_DEEP)
                .with_hint("narrow the rewrite's glob to leave this file out, or use a shallower query"),
            E::NoJournal { .. } => error(code::NOT_FOUND).with_hint(
                "`aide doctor` lists the interrupted transforms and their journals; one a live commit holds is not recoverable yet",
            ),
            E::NothingToUndo => {
                error(code::INVALID_ARGUMENTS).with_hint(say(|v| format!(
                    "{}, or {}",
                    v.call(crate::operations::UNDO, &[Given::positional("execution_ids", json!(["EXECUTION_ID"]))]),
                    v.call(crate::operations::UNDO, &[Given::flag("last", "N")])
                )))
            }
            E::NotAnExecutionId { .. } => error(code::INVALID_ARGUMENTS)
                .with_hint("give the execution_id (at least 8 characters) of an applied transform"),
            E::NoSuchTransform { .. } => error(code::NOT_FOUND)
                .with_hint(say(|v| format!("undo takes the execution_id an applied (not dry-run) {} gave", v.op(TRANSFORM)))),
            E::AmbiguousExecutionId { .. } => {
                error(code::INVALID_ARGUMENTS).with_hint("give more of the execution_id")
            }
            E::OtherRoot { root, .. } => error(code::CONFLICT)
                .with_hint(say(|v| format!("undo acts on {} only: run it with {}", v.arg("root"), v.arg_is("root", &root))))
                .with_details(json!({ "root": root })),
            E::AlreadyUndone { .. } => error(code::CONFLICT).with_hint("each transform can be undone once"),
            E::PreImageNotKept { path, .. } => error(code::CONFLICT)
                .with_hint("restore the file from version control; nothing was changed")
                .with_details(json!({ "path": path })),
            E::ChangedSinceTransform { changed, .. } => error(code::CONFLICT)
                .with_hint("undo the later transforms first (newest first), or restore the files by hand")
                .with_details(json!({ "changed": changed })),
        }
    }
}
