//! Each subcommand run over its scope of files: parsed by llm-ast-search
//! (in parallel, in path order, kept warm by `aide mcp`), then measured.

use aide_core::tool::{Context, Outcome};
use aide_core::{AideError, Lang, Root};
use llm_ast_search::{Scope, SourceFile};

use crate::error::CodeError;
use crate::metrics::{self, FunctionMetrics};
use crate::output::{CodeOutput, DuplicatesOutput, ImportsOutput, MetricsOutput, page};
use crate::request::{CodeCommand, CodeRequest, DuplicatesArgs, MetricsArgs, ScopeArgs, SortBy};
use crate::{duplicates, imports};

/// The fewest tokens a duplicate may be asked to have: below it, every
/// `x = 1` would be one.
const MIN_TOKENS_FLOOR: usize = 10;

/// Runs a request: opens its root in the context and runs its command.
pub fn run(request: &CodeRequest, ctx: &Context) -> Result<Outcome<CodeOutput>, AideError> {
    let scope_args = request.command.scope();
    aide_core::request::check_limit(scope_args.limit)?;
    let root = ctx.open_root(request.root.as_deref())?;
    let language =
        scope_args.language.as_deref().map(str::parse::<Lang>).transpose().map_err(|e| e.about_field("language"))?;
    let mut notes = Vec::new();
    let threads = aide_core::walk::worker_threads(scope_args.threads, &mut notes);
    let files = Files { root: &root, args: scope_args, language, threads, ctx };
    let mut outcome = match &request.command {
        CodeCommand::Metrics(a) => metrics_of(&files, a)?,
        CodeCommand::Duplicates(a) => duplicates_of(&files, a)?,
        CodeCommand::Imports(a) => {
            let (all, diagnostics) = files.map(imports::of_file)?;
            let files_parsed = all.len();
            let (files, page) = page(all, &a.scope, files_parsed);
            Outcome::with_diagnostics(CodeOutput::Imports(ImportsOutput { files, page }), diagnostics)
        }
    };
    outcome.diagnostics.extend(notes);
    Ok(outcome)
}

/// The files of a request, as llm-ast-search's scope reads them.
pub(crate) struct Files<'a> {
    root: &'a Root,
    args: &'a ScopeArgs,
    language: Option<Lang>,
    threads: usize,
    ctx: &'a Context,
}

impl Files<'_> {
    /// Maps every file of the scope with `f`, in path order; a file with
    /// syntax errors gives its `parse_error` diagnostic too.
    pub(crate) fn map<T: Send>(
        &self,
        f: impl Fn(&SourceFile) -> T + Sync,
    ) -> Result<(Vec<T>, Vec<aide_core::Diagnostic>), AideError> {
        let scope = Scope {
            root: self.root,
            paths: &self.args.paths,
            walk: &self.args.walk,
            language: self.language,
            threads: self.threads,
            ctx: self.ctx,
        };
        // The syntax errors are listed by llm-ast-search, which has the flag.
        let see = self.ctx.voice.pick("llm-ast-search --validate", "ast_search with validate: true");
        scope.map_files(None, |file, diags| {
            diags.extend(file.parse_diagnostic_seeing(see));
            diags.extend(file.macro_diagnostic());
            f(file)
        })
    }
}

fn metrics_of(files: &Files<'_>, args: &MetricsArgs) -> Result<Outcome<CodeOutput>, AideError> {
    let (per_file, diagnostics) = files.map(metrics::of_file)?;
    let files_parsed = per_file.len();
    let (file_totals, functions): (Vec<_>, Vec<_>) = per_file.into_iter().unzip();
    let mut functions: Vec<FunctionMetrics> = functions.into_iter().flatten().collect();
    if let Some(min) = args.min_cyclomatic {
        functions.retain(|f| f.cyclomatic >= min);
    }
    sort_functions(&mut functions, args.sort);
    let (functions, page) = page(functions, &args.scope, files_parsed);
    Ok(Outcome::with_diagnostics(CodeOutput::Metrics(MetricsOutput { functions, page, file_totals }), diagnostics))
}

fn duplicates_of(files: &Files<'_>, args: &DuplicatesArgs) -> Result<Outcome<CodeOutput>, AideError> {
    if args.min_tokens < MIN_TOKENS_FLOOR {
        return Err(CodeError::TooFewTokens { given: args.min_tokens, min: MIN_TOKENS_FLOOR }.into());
    }
    let (per_file, diagnostics) = files.map(duplicates::tokens_of)?;
    files.ctx.check_cancel()?;
    let tokens = per_file.iter().map(duplicates::FileTokens::len).sum();
    let found = duplicates::duplicates(&per_file, args.min_tokens, args.min_lines);
    let (duplicates, page) = page(found, &args.scope, per_file.len());
    let output = DuplicatesOutput { duplicates, page, tokens, min_tokens: args.min_tokens, min_lines: args.min_lines };
    Ok(Outcome::with_diagnostics(CodeOutput::Duplicates(output), diagnostics))
}

/// Functions come in path and place order; a measure puts the highest first
/// (ties in that order: the sort is stable).
fn sort_functions(functions: &mut [FunctionMetrics], by: SortBy) {
    let key: fn(&FunctionMetrics) -> usize = match by {
        SortBy::Location => return,
        SortBy::Cyclomatic => |f| f.cyclomatic,
        SortBy::Cognitive => |f| f.cognitive,
        SortBy::Lines => |f| f.lines,
        SortBy::Parameters => |f| f.parameters,
        SortBy::Nesting => |f| f.nesting,
    };
    functions.sort_by_key(|f| std::cmp::Reverse(key(f)));
}
