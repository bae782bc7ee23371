//! Which files a request covers, read and parsed in parallel.

use std::ops::ControlFlow;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use aide_core::envelope::diag;
use aide_core::text::NonText;
use aide_core::tool::Context;
use aide_core::walk::{WalkArgs, Walker};
use aide_core::{AideError, Diagnostic, Lang, Root};

use crate::error::AstError;

pub(crate) use crate::source::SourceFile;

/// The files of a request: explicit paths (files or directories under the
/// root), or the whole root; filtered by language and the walk options.
pub struct Scope<'a> {
    pub root: &'a Root,
    pub paths: &'a [String],
    pub walk: &'a WalkArgs,
    /// Only files of this language; explicit files are parsed as it whatever
    /// their extension.
    pub language: Option<Lang>,
    pub threads: usize,
    /// The run's cancellation flag (checked between files) and progress
    /// sink (files parsed of the candidates).
    pub ctx: &'a Context,
}

/// Opens a file beneath the root (a swapped folder cannot lead outside),
/// never a FIFO or device, which could block the run; with its metadata.
pub fn open_source(root: &Root, abs: &Path, rel: &str) -> Result<(std::fs::File, std::fs::Metadata), Diagnostic> {
    let file = root.open_file(abs).map_err(|e| e.into_diagnostic(rel))?;
    let meta =
        file.metadata().map_err(|e| Diagnostic::new(diag::UNREADABLE, format!("cannot read: {e}")).with_path(rel))?;
    Ok((file, meta))
}

/// The file's text, or why it is not read (over `max_filesize`,
/// unreadable, binary, UTF-16): a diagnostic.
pub fn read_source(
    mut file: std::fs::File,
    meta: &std::fs::Metadata,
    rel: &str,
    max_filesize: Option<u64>,
) -> Result<Vec<u8>, Diagnostic> {
    if let Some(max) = max_filesize
        && meta.len() > max
    {
        return Err(Diagnostic::new(diag::FILE_TOO_LARGE, format!("{} bytes, over --max-filesize {max}", meta.len()))
            .with_path(rel));
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut file, &mut bytes)
        .map_err(|e| Diagnostic::new(diag::UNREADABLE, format!("cannot read: {e}")).with_path(rel))?;
    match aide_core::text::non_text(&bytes) {
        Some(NonText::Utf16) => Err(Diagnostic::new(diag::UNSUPPORTED_ENCODING, "UTF-16 file skipped").with_path(rel)),
        Some(NonText::Binary) => {
            Err(Diagnostic::new(diag::BINARY_FILE, "binary file (NUL byte) skipped").with_path(rel))
        }
        None => Ok(bytes),
    }
}

/// A file to look at: where it is and how to parse it.
struct Candidate {
    abs: std::path::PathBuf,
    rel: String,
    lang: Lang,
    /// The language was named for this file (--language with an explicit path).
    forced: bool,
}

impl Scope<'_> {
    /// The candidate files, sorted by path, and the walk's diagnostics.
    fn candidates(&self) -> Result<(Vec<Candidate>, Vec<Diagnostic>), AideError> {
        let mut out = Vec::new();
        let mut diagnostics = Vec::new();
        let wanted = |path: &Path| -> Option<Lang> {
            let detected = Lang::from_path(path)?;
            match self.language {
                None => Some(detected),
                Some(l) if l == detected => Some(l),
                // A header may turn out to be C++ once read.
                Some(Lang::Cpp) if Lang::is_ambiguous(path) => Some(Lang::Cpp),
                _ => None,
            }
        };
        let walk_dir = |dir_root: &Root, prefix: &str, out: &mut Vec<Candidate>, diags: &mut Vec<Diagnostic>| {
            let walker = Walker::new(dir_root, self.walk)?.cancelled_by(&self.ctx.cancel);
            let (files, d) = walker.collect(self.threads)?;
            diags.extend(d.into_iter().map(|mut d| {
                d.path = d.path.map(|p| join(prefix, &p));
                d
            }));
            out.extend(files.into_iter().filter_map(|f| {
                let lang = wanted(&f.abs)?;
                Some(Candidate { rel: join(prefix, &f.rel), abs: f.abs, lang, forced: false })
            }));
            Ok::<(), AideError>(())
        };
        if self.paths.is_empty() {
            walk_dir(self.root, "", &mut out, &mut diagnostics)?;
        }
        // A path refused is the `paths` argument's fault: the error names it.
        let in_paths = |e: AideError| e.about_field("paths");
        for p in self.paths {
            let abs = self.root.resolve(p).map_err(in_paths)?;
            let rel = self.root.relative(&abs).unwrap_or_else(|| p.clone());
            let meta = std::fs::metadata(&abs)
                .map_err(|e| in_paths(AstError::PathUnreadable { path: p.clone(), message: e.to_string() }.into()))?;
            if !meta.is_dir() {
                use std::os::unix::fs::MetadataExt;
                aide_core::root::OpenFailure::check_regular(meta.mode()).map_err(|e| in_paths(e.into_error(&rel)))?;
            }
            if meta.is_dir() {
                let sub = self.root.subdir(&abs).map_err(in_paths)?;
                let prefix = if rel.is_empty() || rel == "." { String::new() } else { rel };
                walk_dir(&sub, &prefix, &mut out, &mut diagnostics)?;
                continue;
            }
            let lang = match self.language.or_else(|| Lang::from_path(&abs)) {
                Some(l) => l,
                None => {
                    return Err(in_paths(AstError::UnknownLanguage { path: p.clone() }.into()));
                }
            };
            out.push(Candidate { abs, rel, lang, forced: self.language.is_some() });
        }
        out.sort_by(|a, b| aide_core::ordering::cmp_path(&a.rel, &b.rel));
        out.dedup_by(|a, b| a.rel == b.rel);
        Ok((out, diagnostics))
    }

    /// Parses every file of the scope (only those containing `needle`, when
    /// given) and maps it with `f`, in parallel. Results come back sorted by
    /// path; diagnostics (unreadable, binary, syntax errors…) beside them.
    pub fn map_files<T, F>(&self, needle: Option<&[u8]>, f: F) -> Result<(Vec<T>, Vec<Diagnostic>), AideError>
    where
        T: Send,
        F: Fn(&SourceFile, &mut Vec<Diagnostic>) -> T + Sync,
    {
        let mut out = Vec::new();
        let (diagnostics, _) = self.for_each_file(needle, f, |t| {
            out.push(t);
            ControlFlow::Continue(())
        })?;
        Ok((out, diagnostics))
    }

    /// [`Scope::map_files`], handing each result to `sink` in path order as
    /// soon as every earlier file is done, instead of collecting them. When
    /// `sink` breaks, no further file is parsed, and the diagnostics are
    /// those of the walk and of the files handed on (the same on every run,
    /// however far the workers had got). The flag: files were left unread.
    pub fn for_each_file<T, F, S>(
        &self,
        needle: Option<&[u8]>,
        f: F,
        mut sink: S,
    ) -> Result<(Vec<Diagnostic>, bool), AideError>
    where
        T: Send,
        F: Fn(&SourceFile, &mut Vec<Diagnostic>) -> T + Sync,
        S: FnMut(T) -> ControlFlow<()>,
    {
        let (candidates, mut diagnostics) = self.candidates()?;
        let max_filesize = self.walk.max_filesize;
        let next = AtomicUsize::new(0);
        let threads = self.threads.clamp(1, candidates.len().max(1));
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Option<T>, Vec<Diagnostic>)>();
        let progress = self.ctx.progress.counter(Some(candidates.len() as u64));
        let stopped = std::sync::atomic::AtomicBool::new(false);
        let mut handed = 0usize;
        let (f, candidates, next, progress, stopped) = (&f, &candidates, &next, &progress, &stopped);
        std::thread::scope(|s| {
            for _ in 0..threads {
                let tx = tx.clone();
                s.spawn(move || {
                    loop {
                        if self.ctx.cancel.is_cancelled() || stopped.load(Ordering::Relaxed) {
                            break;
                        }
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(c) = candidates.get(i) else { break };
                        let mut diags = Vec::new();
                        let result = self.process(c, needle, max_filesize, f, &mut diags);
                        progress.tick();
                        if tx.send((i, result, diags)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            // Results arrive in any order; hand them on in path order.
            let mut pending = std::collections::BTreeMap::new();
            let want = &mut handed;
            for (i, item, diags) in rx {
                if stopped.load(Ordering::Relaxed) {
                    continue;
                }
                pending.insert(i, (item, diags));
                while let Some((item, diags)) = pending.remove(&*want) {
                    diagnostics.extend(diags);
                    *want += 1;
                    if let Some(t) = item
                        && sink(t).is_break()
                    {
                        stopped.store(true, Ordering::Relaxed);
                        break;
                    }
                }
            }
        });
        self.ctx.check_cancel()?;
        aide_core::envelope::sort_diagnostics(&mut diagnostics);
        let left_unread = handed < candidates.len();
        Ok((diagnostics, left_unread))
    }

    /// Reads, filters and parses one candidate, then maps it.
    fn process<T, F>(
        &self,
        c: &Candidate,
        needle: Option<&[u8]>,
        max_filesize: Option<u64>,
        f: &F,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<T>
    where
        F: Fn(&SourceFile, &mut Vec<Diagnostic>) -> T,
    {
        let (handle, meta) = match open_source(self.root, &c.abs, &c.rel) {
            Ok(opened) => opened,
            Err(d) => {
                diags.push(d);
                return None;
            }
        };
        let lacks_needle = |source: &[u8]| needle.is_some_and(|n| !holds_token(source, n));
        let file = match crate::warm::get(&c.abs, &c.rel, c.lang, &meta) {
            Some(file) if max_filesize.is_none_or(|max| meta.len() <= max) => {
                if lacks_needle(&file.source) {
                    return None;
                }
                file
            }
            _ => {
                let source = match read_source(handle, &meta, &c.rel, max_filesize) {
                    Ok(s) => s,
                    Err(d) => {
                        diags.push(d);
                        return None;
                    }
                };
                if lacks_needle(&source) {
                    return None;
                }
                // Headers: C or C++ by content, unless the language was named.
                let lang = if Lang::is_ambiguous(&c.abs) && !c.forced {
                    Lang::from_path_and_content(&c.abs, &source).unwrap_or(c.lang)
                } else {
                    c.lang
                };
                match SourceFile::parse(c.rel.clone(), lang, source) {
                    Ok(file) => {
                        let file = std::sync::Arc::new(file);
                        crate::warm::put(&c.abs, c.lang, &meta, file.clone());
                        file
                    }
                    Err(d) => {
                        diags.push(d);
                        return None;
                    }
                }
            }
        };
        if self.language.is_some_and(|l| l != file.lang) {
            return None;
        }
        Some(f(&file, diags))
    }
}

/// Whether `needle` occurs in `source` as a token could (see [`is_token_at`]):
/// `unwrap_or` holds `unwrap` but no token `unwrap`.
pub(crate) fn holds_token(source: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find_iter(source, needle).any(|at| is_token_at(source, at, needle.len()))
}

/// Whether the `len` bytes at `at` can be a whole token: where they begin
/// (end) with an ASCII letter, digit or `_`, not right after (before)
/// one, since a name or literal of any of the nine languages never stops
/// inside such a run.
pub fn is_token_at(source: &[u8], at: usize, len: usize) -> bool {
    if len == 0 {
        return true;
    }
    let word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    let (open_start, open_end) = (source.get(at).is_some_and(word), source.get(at + len - 1).is_some_and(word));
    let starts = !open_start || at == 0 || !word(&source[at - 1]);
    let ends = !open_end || source.get(at + len).is_none_or(|b| !word(b));
    starts && ends
}

fn join(prefix: &str, rel: &str) -> String {
    if prefix.is_empty() { rel.to_string() } else { format!("{prefix}/{rel}") }
}

#[cfg(test)]
mod tests {
    use super::holds_token;

    #[test]
    fn a_needle_counts_only_as_a_whole_token() {
        assert!(holds_token(b"x.unwrap()", b"unwrap"));
        assert!(!holds_token(b"x.unwrap_or(1); unwrapped", b"unwrap"));
        assert!(holds_token(b"unwrap_or unwrap", b"unwrap"));
        assert!(holds_token(b"unwrap", b"unwrap"));
        // Only the needle's word ends are checked: `"()"` may touch anything.
        assert!(holds_token(b"f()", b"()"));
        assert!(holds_token(b"$foo", b"foo"));
        assert!(!holds_token(b"", b"x"));
    }
}
