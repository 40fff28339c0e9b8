//! The commit the binary is built from, for `linkpath_build_info`:
//! `LINKPATH_COMMIT` when set (an image built without the repository's
//! history), else `git rev-parse --short HEAD`, else `unknown`, so a build
//! without git still works.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=LINKPATH_COMMIT");
    let from_env = std::env::var("LINKPATH_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty());
    let commit = from_env
        .or_else(|| git(&["rev-parse", "--short", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_owned());
    // A label value of the operator's choosing stays printable and short.
    let commit: String = commit
        .trim()
        .chars()
        .filter(|c| c.is_ascii_graphic())
        .take(40)
        .collect();
    println!("cargo:rustc-env=LINKPATH_COMMIT={commit}");
    // A new commit moves HEAD or the branch it names. Only files that
    // exist: cargo reruns a script watching a missing one on every build.
    let branch = git(&["symbolic-ref", "-q", "HEAD"]);
    for file in ["HEAD", "packed-refs"].into_iter().chain(branch.as_deref()) {
        if let Some(path) = git(&["rev-parse", "--git-path", file])
            && Path::new(&path).exists()
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}

/// What git prints for `args`, or `None` without git or a repository.
fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    (output.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
}
