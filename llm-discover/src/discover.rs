//! A discovery run: the walk, the ranking or listing, and the tree.

use crate::error::DiscoverError;
use crate::output::Reason;
use crate::output::{DiscoverOutput, Found, Kind, Mode};
use crate::rank::Ranker;
use crate::request::{DEFAULT_LIMIT, DEFAULT_TREE_LIMIT, DiscoverRequest};
use crate::{folders, rank, tree};
use aide_core::tool::{Context, Outcome};
use aide_core::walk::{Walker, default_threads};
use aide_core::{AideError, Root};

/// Splits `--type` values into entry kinds and languages.
fn split_types(types: &[String]) -> (bool, bool, Vec<String>) {
    let mut files = false;
    let mut dirs = false;
    let mut langs = Vec::new();
    for t in types {
        match t.to_ascii_lowercase().as_str() {
            "f" | "file" => files = true,
            "d" | "dir" | "directory" => dirs = true,
            _ => langs.push(t.clone()),
        }
    }
    if !files && !dirs {
        files = true;
    }
    (files, dirs, langs)
}

/// Runs a discovery request; stops at the context's cancellation flag.
pub fn discover(root: &Root, req: &DiscoverRequest, ctx: &Context) -> Result<Outcome<DiscoverOutput>, AideError> {
    aide_core::request::check_limit(req.limit)?;
    let threads = req.threads.unwrap_or_else(default_threads).max(1);
    let (want_files, want_dirs, langs) = split_types(&req.walk.r#type);
    let mut walk = req.walk.clone();
    walk.r#type = langs;

    if req.tree {
        if req.query.is_some() {
            return Err(DiscoverError::TreeWithQuery.into());
        }
        let walker = Walker::new(root, &walk)?.include_dirs(true).watched(ctx);
        let mut built = tree::build(&walker, threads, req.limit.unwrap_or(DEFAULT_TREE_LIMIT), ctx.voice)?;
        if req.tree_checksum {
            let scanned = aide_core::tree::scan(root, std::path::Path::new(""), aide_core::tree::Depth::Checksums)
                .map_err(|e| e.into_error("."))?;
            built.output.tree_checksum = Some(scanned.checksum());
        }
        return Ok(built);
    }

    let walker = Walker::new(root, &walk)?.include_dirs(want_dirs).watched(ctx);
    let keep = |is_dir: bool| if is_dir { want_dirs } else { want_files };
    let (mut found, diagnostics, mode) = match req.query.as_deref() {
        Some(q) => {
            let ranker = Ranker::new(q)?;
            let (found, diagnostics) = walker.filter_map_parallel(threads, || {
                let mut scratch = rank::Scratch::new();
                let ranker = &ranker;
                move |f: aide_core::walk::WalkedFile| {
                    if !keep(f.is_dir) {
                        return None;
                    }
                    let kind = if f.is_dir { Kind::Dir } else { Kind::File };
                    ranker.rank(&f.rel, kind, &mut scratch)
                }
            })?;
            // Asked for folders, a folder is ranked itself.
            let found = if want_dirs { found } else { folders::stand_for_files(found, &ranker) };
            (found, diagnostics, Mode::Query)
        }
        None => {
            let (found, diagnostics) = walker.filter_map_parallel(threads, || {
                move |f: aide_core::walk::WalkedFile| {
                    keep(f.is_dir).then(|| Found {
                        kind: if f.is_dir { Kind::Dir } else { Kind::File },
                        path: f.rel,
                        score: 1.0,
                        reason: Reason::Listed,
                        reason_text: Reason::Listed.text(),
                        matched: Vec::new(),
                    })
                }
            })?;
            (found, diagnostics, Mode::List)
        }
    };
    found.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.path.as_bytes().cmp(b.path.as_bytes())));
    let total = found.len();
    let limit = req.limit.unwrap_or(DEFAULT_LIMIT);
    let results: Vec<Found> = found.into_iter().skip(req.offset).take(limit).collect();
    let next = req.offset.saturating_add(results.len());
    let more = next < total;
    let output = DiscoverOutput {
        mode,
        query: req.query.clone(),
        results,
        total,
        truncated: more,
        next_offset: more.then_some(next),
        tree: None,
        files: None,
        directories: None,
        total_size: None,
        tree_checksum: None,
    };
    Ok(Outcome::with_diagnostics(output, diagnostics))
}
