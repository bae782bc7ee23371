//! File walking with ripgrep's semantics.
//!
//! `.gitignore` (inside a git repository, as ripgrep), `.ignore` and
//! `.git/info/exclude` are honoured and hidden
//! files skipped unless `--hidden`/`--no-ignore`; `--glob` takes gitignore-style
//! globs relative to the root (`!` excludes); `--type` keeps files of the given
//! languages. Nothing is skipped silently: unreadable directories, symlinks
//! that are not followed or lead outside the root, broken symlinks and files
//! over the size limit each become a [`Diagnostic`].

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ignore::overrides::OverrideBuilder;
use ignore::{WalkBuilder, WalkState};
use serde::{Deserialize, Serialize};

use crate::envelope::{Diagnostic, diag};
use crate::error::{AideError, WalkError};
use crate::lang::Lang;
use crate::progress::ProgressSink;
use crate::root::{Root, to_slash};
use crate::sync::lock;
use crate::tool::{Cancel, Context};

mod ordered;

/// Walking options shared by every tool that reads a tree. Flattened into
/// each tool's flags and request.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct WalkArgs {
    /// Globs of files to include, `!glob` to exclude (gitignore syntax,
    /// relative to the root). Repeatable.
    #[arg(long = "glob", short = 'g', value_name = "GLOB")]
    #[serde(deserialize_with = "crate::request::one_or_many")]
    #[schemars(schema_with = "crate::request::one_or_many_schema")]
    pub glob: Vec<String>,
    /// Only files of these languages: rust, python, typescript, tsx,
    /// javascript, c, cpp, java, go. Repeatable.
    #[arg(long = "type", short = 't', value_name = "LANG")]
    #[serde(rename = "type", deserialize_with = "crate::request::one_or_many")]
    #[schemars(schema_with = "crate::request::one_or_many_schema")]
    pub r#type: Vec<String>,
    /// Include hidden files and directories.
    #[arg(long, short = '.')]
    pub hidden: bool,
    /// Do not honour .gitignore, .ignore and similar files.
    #[arg(long)]
    pub no_ignore: bool,
    /// Follow symbolic links (never out of the root).
    #[arg(long, short = 'L')]
    pub follow: bool,
    /// Descend at most this many directories below the root.
    #[arg(long, value_name = "N")]
    pub max_depth: Option<usize>,
    /// Skip files over this many bytes (on the command line, suffixes K, M
    /// and G too).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_filesize: Option<u64>,
    /// Only files git says changed against REV (default HEAD: the working
    /// tree and the index), untracked ones included. `--changed=REV`.
    #[arg(long, value_name = "REV", num_args = 0..=1, require_equals = true, default_missing_value = "HEAD")]
    pub changed: Option<String>,
}

/// A file (or, with [`Walker::include_dirs`], a directory) found by the walk.
#[derive(Debug, Clone)]
pub struct WalkedFile {
    pub abs: PathBuf,
    /// Relative to the root, `/`-separated.
    pub rel: String,
    pub depth: usize,
    pub is_dir: bool,
}

/// A prepared walk over a root.
#[derive(Debug)]
pub struct Walker<'a> {
    root: &'a Root,
    args: WalkArgs,
    langs: Vec<Lang>,
    overrides: ignore::overrides::Override,
    include_dirs: bool,
    /// `--changed`: the files git says changed, relative to the root.
    changed: Option<std::collections::BTreeSet<String>>,
    /// Only what is at or beneath these paths (relative to the root; none:
    /// the whole tree).
    under: Vec<String>,
    cancel: Cancel,
    progress: ProgressSink,
    /// Trees of at most this many entries are walked on the calling thread.
    small_tree: usize,
}

impl<'a> Walker<'a> {
    pub fn new(root: &'a Root, args: &WalkArgs) -> Result<Walker<'a>, AideError> {
        let langs = args.r#type.iter().map(|t| t.parse()).collect::<Result<Vec<Lang>, _>>()?;
        let mut ob = OverrideBuilder::new(root.path());
        for g in &args.glob {
            ob.add(g).map_err(|e| WalkError::InvalidGlob { glob: g.clone(), message: e.to_string() })?;
        }
        let overrides = ob.build().map_err(|e| WalkError::GlobSet { message: e.to_string() })?;
        let changed = match &args.changed {
            Some(rev) => Some(crate::git::changed_files(root.path(), rev)?),
            None => None,
        };
        Ok(Walker {
            root,
            args: args.clone(),
            langs,
            overrides,
            include_dirs: false,
            changed,
            under: Vec::new(),
            cancel: Cancel::new(),
            progress: ProgressSink::default(),
            small_tree: SMALL_TREE,
        })
    }

    /// Only files (and folders) at or beneath `paths`, each a file or folder
    /// resolved inside the root: a request's `paths`. As in ripgrep, a path
    /// given is walked though an ignore file, a glob or a type would leave
    /// it out (a file named is searched), and the walk's filters still
    /// apply beneath it; `max_depth` counts from it.
    pub fn under(mut self, paths: &[String]) -> Result<Self, AideError> {
        for p in paths {
            let abs = self.root.resolve(p)?;
            std::fs::metadata(&abs).map_err(|e| AideError::io(p, &e))?;
            let rel = self.root.relative(&abs).unwrap_or_default();
            self.under.push(if rel == "." { String::new() } else { rel });
        }
        Ok(self)
    }

    /// Where the walk starts: the root, or the paths of [`Walker::under`]
    /// in path order (a folder's as its files', `dir/…`), none beneath
    /// another, so an ordered walk still hands files on in path order.
    fn starts(&self) -> Vec<PathBuf> {
        if self.under.is_empty() || self.under.iter().any(String::is_empty) {
            return vec![self.root.path().to_path_buf()];
        }
        let key = |rel: &String| {
            let dir = std::fs::metadata(self.root.path().join(rel)).is_ok_and(|m| m.is_dir());
            if dir { format!("{rel}/") } else { rel.clone() }
        };
        let mut under: Vec<(String, &String)> = self.under.iter().map(|rel| (key(rel), rel)).collect();
        under.sort();
        under.dedup();
        let mut starts: Vec<&Path> = Vec::new();
        for (_, rel) in under {
            let path = Path::new(rel.as_str());
            if !starts.iter().any(|s| path.starts_with(s)) {
                starts.push(path);
            }
        }
        starts.into_iter().map(|p| self.root.path().join(p)).collect()
    }

    /// Whether `rel` is at or beneath one of [`Walker::under`]'s paths.
    fn is_under(&self, rel: &str) -> bool {
        self.under.is_empty()
            || self
                .under
                .iter()
                .any(|p| p.is_empty() || rel == p || rel.strip_prefix(p.as_str()).is_some_and(|r| r.starts_with('/')))
    }

    /// Always the parallel walk, however small the tree: for tests that
    /// hold the two walks to the same result.
    #[cfg(test)]
    pub(crate) fn always_parallel(mut self) -> Self {
        self.small_tree = 0;
        self
    }

    /// Also visit directories (never the root itself).
    pub fn include_dirs(mut self, yes: bool) -> Self {
        self.include_dirs = yes;
        self
    }

    /// Stops at the caller's cancellation flag (the walk then ends with a
    /// `cancelled` error) and reports each file visited to its progress sink.
    pub fn watched(self, ctx: &Context) -> Self {
        let mut walker = self.cancelled_by(&ctx.cancel);
        walker.progress = ctx.progress.clone();
        walker
    }

    /// Stops at `cancel` (the walk then ends with a `cancelled` error).
    pub fn cancelled_by(mut self, cancel: &Cancel) -> Self {
        self.cancel = cancel.clone();
        self
    }

    pub fn max_filesize(&self) -> Option<u64> {
        self.args.max_filesize
    }

    /// `pruned` collects the `outside_root` diagnostics of followed links
    /// that are not walked.
    fn builder(&self, threads: usize, pruned: &std::sync::Arc<Mutex<Vec<Diagnostic>>>) -> WalkBuilder {
        let starts = self.starts();
        let mut b = WalkBuilder::new(&starts[0]);
        for start in &starts[1..] {
            b.add(start);
        }
        if self.args.follow {
            // A followed link to a folder outside the root is pruned at the
            // link, with one diagnostic: never walked (a link to `/` would
            // never end), and never thousands of per-file diagnostics.
            let root = self.root.clone();
            let pruned = pruned.clone();
            b.filter_entry(move |entry| {
                if !entry.path_is_symlink() || !entry.file_type().is_some_and(|t| t.is_dir()) {
                    return true;
                }
                let inside = entry.path().canonicalize().is_ok_and(|c| c.starts_with(root.path()));
                if !inside {
                    let rel = root.relative(entry.path()).unwrap_or_else(|| to_slash(entry.path()));
                    lock(&pruned).push(
                        Diagnostic::new(diag::OUTSIDE_ROOT, "symlinked folder leads outside the root; not walked")
                            .with_path(rel),
                    );
                }
                inside
            });
        }
        b.hidden(!self.args.hidden)
            .ignore(!self.args.no_ignore)
            .git_ignore(!self.args.no_ignore)
            .git_global(!self.args.no_ignore)
            .git_exclude(!self.args.no_ignore)
            .parents(!self.args.no_ignore)
            // As ripgrep: .gitignore counts only inside a git repository
            // (.ignore files count everywhere).
            .require_git(true)
            .follow_links(self.args.follow)
            .max_depth(self.args.max_depth)
            .overrides(self.overrides.clone())
            .threads(threads);
        b
    }

    /// Classifies one walk entry: a file to visit, or a diagnostic, or nothing
    /// (directories).
    fn classify(&self, result: Result<ignore::DirEntry, ignore::Error>) -> Option<Result<WalkedFile, Diagnostic>> {
        let entry = match result {
            Ok(e) => e,
            Err(err) => return Some(Err(walk_error(self.root, &err))),
        };
        let ft = entry.file_type()?;
        let rel = self.root.relative(entry.path()).unwrap_or_else(|| to_slash(entry.path()));
        if !ft.is_dir() && !self.is_under(&rel) {
            return None;
        }
        if ft.is_symlink() {
            // Only reached when not following links.
            return Some(Err(symlink_skipped(rel, entry.path())));
        }
        if ft.is_dir() {
            // With --changed, a folder is listed when it holds a changed file.
            let holds_changed = self
                .changed
                .as_ref()
                .is_none_or(|c| c.iter().any(|f| f.starts_with(&rel) && f[rel.len()..].starts_with('/')));
            let depth = depth_of(&rel);
            return (self.include_dirs && depth > 0 && holds_changed && self.is_under(&rel))
                .then(|| Ok(WalkedFile { abs: entry.path().to_path_buf(), rel, depth, is_dir: true }));
        }
        if self.changed.as_ref().is_some_and(|c| !c.contains(&rel)) {
            return None;
        }
        if !ft.is_file() {
            // A FIFO, socket or device: never opened (a FIFO would block).
            use std::os::unix::fs::FileTypeExt;
            let kind = if ft.is_fifo() {
                "fifo"
            } else if ft.is_socket() {
                "socket"
            } else if ft.is_block_device() || ft.is_char_device() {
                "device"
            } else {
                "special file"
            };
            return Some(Err(Diagnostic::new(diag::NOT_A_REGULAR_FILE, format!("a {kind}, skipped")).with_path(rel)));
        }
        if self.args.follow && !entry.path().canonicalize().is_ok_and(|c| c.starts_with(self.root.path())) {
            return Some(Err(
                Diagnostic::new(diag::OUTSIDE_ROOT, "symlinked file outside the root skipped").with_path(rel)
            ));
        }
        // A file named as a path is searched whatever its type, as in ripgrep.
        let named = entry.depth() == 0;
        if !named && !self.langs.is_empty() && !Lang::from_path(entry.path()).is_some_and(|l| self.langs.contains(&l)) {
            return None;
        }
        let depth = depth_of(&rel);
        Some(Ok(WalkedFile { abs: entry.path().to_path_buf(), rel, depth, is_dir: false }))
    }

    /// A file whose name is not UTF-8 is still visited, under a name the
    /// tools accept back — and said so.
    fn note_lossy_name(&self, file: &WalkedFile, diagnostics: &Mutex<Vec<Diagnostic>>) {
        if file.abs.to_str().is_none() {
            lock(diagnostics).push(
                Diagnostic::new(
                    diag::LOSSY_UTF8,
                    "the file name is not UTF-8: shown with \\xHH for each stray byte (and \\\\ for a backslash), a form every tool accepts back",
                )
                .with_path(&file.rel),
            );
        }
    }

    /// Visits every file in parallel. `make_visitor` is called once per worker
    /// thread; its visitor gets each file that thread finds. Returns the
    /// walk's diagnostics, sorted, or `cancelled` when the flag of
    /// [`Walker::watched`] was raised (checked before every entry).
    pub fn visit_parallel<M, V>(&self, threads: usize, make_visitor: M) -> Result<Vec<Diagnostic>, AideError>
    where
        M: Fn() -> V + Sync,
        V: FnMut(WalkedFile) + Send,
    {
        let diagnostics = Mutex::new(Vec::new());
        let progress = self.progress.counter(None);
        // A small tree is visited on this thread: the parallel walker's idle
        // workers sleep a millisecond at a time before they see that the
        // walk is over, a third of a small run's wall time.
        if threads > 1
            && let Some((entries, mut pruned)) = self.small_tree()
        {
            let mut visit = make_visitor();
            for result in entries {
                if self.cancel.is_cancelled() {
                    break;
                }
                match self.classify(result) {
                    Some(Ok(file)) => {
                        self.note_lossy_name(&file, &diagnostics);
                        visit(file);
                        progress.tick();
                    }
                    Some(Err(d)) => lock(&diagnostics).push(d),
                    None => {}
                }
            }
            drop(visit);
            let mut diagnostics = diagnostics.into_inner().unwrap_or_else(|p| p.into_inner());
            diagnostics.append(&mut pruned);
            crate::envelope::sort_diagnostics(&mut diagnostics);
            self.cancel.check()?;
            return Ok(diagnostics);
        }
        let pruned = std::sync::Arc::new(Mutex::new(Vec::new()));
        self.builder(threads, &pruned).build_parallel().run(|| {
            let mut visit = make_visitor();
            let diagnostics = &diagnostics;
            let progress = &progress;
            Box::new(move |result| {
                if self.cancel.is_cancelled() {
                    return WalkState::Quit;
                }
                match self.classify(result) {
                    Some(Ok(file)) => {
                        self.note_lossy_name(&file, diagnostics);
                        visit(file);
                        progress.tick();
                    }
                    Some(Err(d)) => lock(diagnostics).push(d),
                    None => {}
                }
                WalkState::Continue
            })
        });
        let mut diagnostics = diagnostics.into_inner().unwrap_or_else(|p| p.into_inner());
        diagnostics.append(&mut lock(&pruned));
        crate::envelope::sort_diagnostics(&mut diagnostics);
        self.cancel.check()?;
        Ok(diagnostics)
    }

    /// Every entry of the tree, walked on this thread, and the diagnostics
    /// of links pruned on the way — unless it has more than [`SMALL_TREE`]
    /// entries (then None, and what was walked is dropped). An empty tree
    /// still has its root's entry, so a limit of 0 never walks here.
    fn small_tree(&self) -> Option<(Vec<WalkEntry>, Vec<Diagnostic>)> {
        let pruned = std::sync::Arc::new(Mutex::new(Vec::new()));
        let mut entries = Vec::new();
        for result in self.builder(1, &pruned).build() {
            if entries.len() >= self.small_tree {
                return None;
            }
            entries.push(result);
        }
        let pruned = std::mem::take(&mut *lock(&pruned));
        Some((entries, pruned))
    }

    /// Maps every file in parallel, keeping the `Some` results (in no
    /// particular order: callers sort). Each thread buffers its own results
    /// and hands them over once, when it finishes.
    pub fn filter_map_parallel<T, M, F>(
        &self,
        threads: usize,
        make_mapper: M,
    ) -> Result<(Vec<T>, Vec<Diagnostic>), AideError>
    where
        T: Send,
        M: Fn() -> F + Sync,
        F: FnMut(WalkedFile) -> Option<T> + Send,
    {
        let out = Mutex::new(Vec::new());
        let diagnostics = self.visit_parallel(threads, || {
            let mut map = make_mapper();
            let mut buffer = ThreadBuffer { items: Vec::new(), out: &out };
            move |file| {
                if let Some(item) = map(file) {
                    buffer.items.push(item);
                }
            }
        })?;
        Ok((out.into_inner().unwrap_or_else(|p| p.into_inner()), diagnostics))
    }

    /// Every file, sorted by relative path, and the walk's diagnostics.
    pub fn collect(&self, threads: usize) -> Result<(Vec<WalkedFile>, Vec<Diagnostic>), AideError> {
        let (mut files, diagnostics) = self.filter_map_parallel(threads, || Some)?;
        files.sort_by(|a, b| crate::ordering::cmp_path(&a.rel, &b.rel));
        Ok((files, diagnostics))
    }
}

/// What a walk that does not follow links says of the link `rel` at `abs`:
/// broken, or not followed (what it says changes when its target comes or goes).
pub fn symlink_skipped(rel: String, abs: &Path) -> Diagnostic {
    match std::fs::metadata(abs) {
        Err(_) => Diagnostic::new(diag::BROKEN_SYMLINK, "broken symlink skipped").with_path(rel),
        Ok(_) => Diagnostic::new(diag::SYMLINK_NOT_FOLLOWED, "symlink not followed (use --follow)").with_path(rel),
    }
}

/// A worker thread's results, moved to the shared list when the thread's
/// visitor is dropped at the end of the walk.
struct ThreadBuffer<'a, T> {
    items: Vec<T>,
    out: &'a Mutex<Vec<T>>,
}

impl<T> Drop for ThreadBuffer<'_, T> {
    fn drop(&mut self) {
        lock(self.out).append(&mut self.items);
    }
}

/// One entry of ignore's walk: a file or folder, or what went wrong.
type WalkEntry = Result<ignore::DirEntry, ignore::Error>;

/// Trees of at most this many entries (files, folders, errors) are walked
/// and visited on the calling thread: for them, starting and stopping the
/// parallel walk costs more than it saves.
const SMALL_TREE: usize = 64;

/// The default number of worker threads: the number of CPUs this process
/// may use, asked once (each asking reads the cgroup's files again).
pub fn default_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The most worker threads a run uses: 4× the CPUs, at most 64 (more only
/// costs memory and start-up; `--threads 100000` once ran for 14 minutes).
pub fn max_threads() -> usize {
    (4 * default_threads()).min(64)
}

/// The worker threads for `--threads requested`: the CPUs by default, at
/// least 1, at most [`max_threads`] — with a `threads_capped` diagnostic
/// when the request was cut.
pub fn worker_threads(requested: Option<usize>, diagnostics: &mut Vec<Diagnostic>) -> usize {
    let max = max_threads();
    match requested {
        None => default_threads().min(max),
        Some(n) if n > max => {
            diagnostics.push(Diagnostic::new(
                diag::THREADS_CAPPED,
                format!("--threads {n} is over the cap of {max} (4× the CPUs, at most 64); {max} were used"),
            ));
            max
        }
        Some(n) => n.max(1),
    }
}

fn walk_error(root: &Root, err: &ignore::Error) -> Diagnostic {
    let shown = |p: &std::path::Path| root.relative(p).unwrap_or_else(|| to_slash(p));
    let path = error_path(err).map(shown);
    // Paths in messages are the root's, relative, as everywhere else in the output.
    let d = match loop_of(err) {
        Some((ancestor, child)) => Diagnostic::new(
            diag::SYMLINK_LOOP,
            format!("a symlink loop: {} leads back to {}; not walked again", shown(child), shown(ancestor)),
        ),
        None => Diagnostic::new(diag::WALK_ERROR, walk_error_message(err, &shown)),
    };
    match path {
        Some(p) => d.with_path(p),
        None => d,
    }
}

/// The same words for the same failure whichever walker met it: the
/// sequential walker's errors come through walkdir, which words an OS error
/// as "IO error for operation on PATH: …" where the parallel one says
/// "PATH: …".
fn walk_error_message(err: &ignore::Error, shown: &dyn Fn(&std::path::Path) -> String) -> String {
    fn os_error(err: &ignore::Error) -> Option<i32> {
        match err {
            // walkdir's error, wrapped: the OS error is its source.
            ignore::Error::Io(e) => e.raw_os_error().or_else(|| {
                let inner = e.get_ref()?.source()?;
                inner.downcast_ref::<std::io::Error>()?.raw_os_error()
            }),
            ignore::Error::WithPath { err, .. }
            | ignore::Error::WithDepth { err, .. }
            | ignore::Error::WithLineNumber { err, .. } => os_error(err),
            _ => None,
        }
    }
    match (error_path(err), os_error(err)) {
        (Some(path), Some(code)) => format!("{}: {}", shown(path), std::io::Error::from_raw_os_error(code)),
        (Some(path), None) => err.to_string().replace(&path.display().to_string(), &shown(path)),
        _ => err.to_string(),
    }
}

/// The folders of a symlink loop: where it leads back to, and the link.
fn loop_of(err: &ignore::Error) -> Option<(&std::path::Path, &std::path::Path)> {
    match err {
        ignore::Error::Loop { ancestor, child } => Some((ancestor, child)),
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => loop_of(err),
        _ => None,
    }
}

fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => error_path(err),
        ignore::Error::Loop { child, .. } => Some(child),
        _ => None,
    }
}

/// Parses `123`, `10K`, `5M`, `1G` (binary multiples) into bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let mult = match c.to_ascii_uppercase() {
                'K' => 1u64 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                _ => return Err(format!("unknown size suffix `{c}` (use K, M or G)")),
            };
            (&s[..i], mult)
        }
        _ => (s, 1),
    };
    let n: u64 = num.parse().map_err(|_| format!("`{s}` is not a size (e.g. 1048576, 512K, 10M)"))?;
    n.checked_mul(mult).ok_or_else(|| format!("`{s}` is too large"))
}

/// How deep `rel` (relative to the root, `/`-separated) lies: 0 for the
/// root itself, 1 for its entries.
fn depth_of(rel: &str) -> usize {
    if rel.is_empty() || rel == "." { 0 } else { rel.split('/').count() }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests start their oracles themselves
mod tests;
