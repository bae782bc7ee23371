//! The Landlock rules of a file sandbox, applied last (after its mounts).

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, BitFlags, CompatLevel, Compatible, PathBeneath, Ruleset, RulesetAttr, RulesetCreatedAttr,
    RulesetError, RulesetStatus, Scope, path_beneath_rules,
};

use super::{SYSTEM_READABLE, Sandbox};

/// The devices a command writes to in the normal course (a terminal, the
/// null device), never block devices or the rest of `/dev`.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
    "/dev/shm",
];

/// Read and execute everywhere (or beneath the readable paths); every
/// file-system right but making device nodes beneath the writable paths,
/// the tool's own folders and the private temporary directory; writing
/// (not creating) the devices above; signals and abstract sockets scoped
/// to the sandbox.
pub(super) fn landlock_rules(sandbox: &Sandbox) -> Result<(), String> {
    let abi = ABI::V9;
    let all = AccessFs::from_all(abi);
    let read = AccessFs::from_read(abi);
    let write = all & !(AccessFs::MakeChar | AccessFs::MakeBlock);
    let device = AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev | read;
    let writable: Vec<&PathBuf> = sandbox.writable.iter().chain(&sandbox.own).chain(&sandbox.temp).collect();
    // Opened without following a link: a writable path that is not there, or is a link now, is not writable.
    let places: Vec<OwnedFd> = writable.iter().filter_map(|p| super::sys::open(p).ok()).collect();
    let readable: Vec<PathBuf> = match &sandbox.readable {
        None => vec![PathBuf::from("/")],
        Some(list) => SYSTEM_READABLE
            .iter()
            .map(PathBuf::from)
            .chain(list.iter().cloned())
            .chain(writable.iter().map(|p| p.to_path_buf()))
            .filter(|p| p.exists())
            .collect(),
    };
    let devices: Vec<&str> = DEVICES.iter().copied().filter(|d| Path::new(d).exists()).collect();
    let err = |e: RulesetError| e.to_string();
    let status = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)
        .map_err(err)?
        .scope(Scope::from_all(abi))
        .map_err(err)?
        .create()
        .map_err(err)?
        .add_rules(path_beneath_rules(&readable, read))
        .map_err(err)?
        .add_rules(path_beneath_rules(&devices, device))
        .map_err(err)?
        .add_rules(places.into_iter().map(|fd| Ok::<_, RulesetError>(beneath(fd, write, abi))))
        .map_err(err)?
        .restrict_self()
        .map_err(err)?;
    if status.ruleset == RulesetStatus::NotEnforced || !status.no_new_privs {
        return Err("Landlock is not enforced by this kernel".into());
    }
    Ok(())
}

/// A rule for what `fd` holds open: `access` beneath a folder, the part
/// of it a file can have for a file.
fn beneath(fd: OwnedFd, access: BitFlags<AccessFs>, abi: ABI) -> PathBeneath<OwnedFd> {
    let is_dir = rustix::fs::fstat(&fd).is_ok_and(|s| rustix::fs::FileType::from_raw_mode(s.st_mode).is_dir());
    let access = if is_dir { access } else { access & AccessFs::from_file(abi) };
    PathBeneath::new(fd, access)
}
