//! How much memory the machine can still give this process, so that a
//! judge board too big for it is refused up front.

use std::path::{Path, PathBuf};

/// Bytes available to this process: Linux's `MemAvailable` plus free swap,
/// capped by the room left under every memory limit of its cgroup and the
/// cgroup's ancestors (v2, or v1's memory controller), as in a container or
/// a systemd unit with `MemoryMax=`. `None` where the kernel does not say.
pub fn available_bytes() -> Option<u64> {
    let mut bytes = from_meminfo(&std::fs::read_to_string("/proc/meminfo").ok()?)?;
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    for (hierarchy, dir) in limited_dirs(&cgroups) {
        for dir in dir
            .ancestors()
            .take_while(|d| d.starts_with(hierarchy.root()))
        {
            if let Some(room) = hierarchy.room(dir) {
                bytes = bytes.min(room);
            }
        }
    }
    Some(bytes)
}

/// `MemAvailable` plus `SwapFree`, in bytes, from `/proc/meminfo`'s text.
fn from_meminfo(meminfo: &str) -> Option<u64> {
    let kib = |name: &str| {
        meminfo.lines().find_map(|line| {
            let value = line.strip_prefix(name)?.strip_prefix(':')?;
            value.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()
        })
    };
    Some((kib("MemAvailable")? + kib("SwapFree").unwrap_or(0)).saturating_mul(1024))
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Hierarchy {
    V2,
    V1Memory,
}

impl Hierarchy {
    fn root(self) -> &'static Path {
        Path::new(match self {
            Hierarchy::V2 => "/sys/fs/cgroup",
            Hierarchy::V1Memory => "/sys/fs/cgroup/memory",
        })
    }

    /// The limit of the cgroup at `dir` less what it uses, not counting
    /// file pages it could drop (as the kernel would before killing).
    /// `None` without a limit or the files.
    fn room(self, dir: &Path) -> Option<u64> {
        let number = |file: &str| -> Option<u64> {
            std::fs::read_to_string(dir.join(file))
                .ok()?
                .trim()
                .parse()
                .ok()
        };
        let (limit, usage, inactive_key) = match self {
            Hierarchy::V2 => ("memory.max", "memory.current", "inactive_file"),
            Hierarchy::V1Memory => (
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
                "total_inactive_file",
            ),
        };
        // "max" (v2) does not parse; v1 writes "no limit" as about 2^63.
        let limit = number(limit).filter(|&l| l < 1 << 62)?;
        let stat = std::fs::read_to_string(dir.join("memory.stat")).unwrap_or_default();
        let inactive = stat_value(&stat, inactive_key).unwrap_or(0);
        let used = number(usage)?.saturating_sub(inactive);
        Some(limit.saturating_sub(used))
    }
}

/// The cgroup directories named by `/proc/self/cgroup`'s text: the v2 one
/// (`0::PATH`) and v1's memory controller (`N:...memory...:PATH`).
fn limited_dirs(cgroups: &str) -> Vec<(Hierarchy, PathBuf)> {
    cgroups
        .lines()
        .filter_map(|line| {
            let mut fields = line.splitn(3, ':');
            let (id, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
            let hierarchy = if id == "0" && controllers.is_empty() {
                Hierarchy::V2
            } else if controllers.split(',').any(|c| c == "memory") {
                Hierarchy::V1Memory
            } else {
                return None;
            };
            let relative = path.trim_start_matches('/');
            Some((hierarchy, hierarchy.root().join(relative)))
        })
        .collect()
}

/// The value of `key` in a `memory.stat` text (`key value` lines).
fn stat_value(stat: &str, key: &str) -> Option<u64> {
    stat.lines().find_map(|line| {
        line.strip_prefix(key)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_counts_available_memory_and_free_swap() {
        let text = "MemTotal:       24576000 kB\nMemFree:         1000 kB\n\
                    MemAvailable:   20000000 kB\nSwapTotal:  2048 kB\nSwapFree:        1024 kB\n";
        assert_eq!(from_meminfo(text), Some((20_000_000 + 1024) * 1024));
        assert_eq!(
            from_meminfo("MemAvailable: 8 kB\n"),
            Some(8 * 1024),
            "no swap line"
        );
        assert_eq!(from_meminfo("MemFree: 8 kB\n"), None, "an old kernel");
    }

    #[test]
    fn both_cgroup_versions_are_found_and_others_ignored() {
        let text = "9:name=systemd:/\n4:memory:/process_api/abc\n1:cpu,cpuacct:/x\n0::/user.slice/u.service\n";
        assert_eq!(
            limited_dirs(text),
            vec![
                (
                    Hierarchy::V1Memory,
                    PathBuf::from("/sys/fs/cgroup/memory/process_api/abc")
                ),
                (
                    Hierarchy::V2,
                    PathBuf::from("/sys/fs/cgroup/user.slice/u.service")
                ),
            ]
        );
        assert_eq!(
            limited_dirs("0::/\n"),
            vec![(Hierarchy::V2, PathBuf::from("/sys/fs/cgroup"))]
        );
    }

    #[test]
    fn a_cgroup_limit_leaves_its_room_less_what_cannot_be_dropped() {
        let dir = std::env::temp_dir().join(format!("linkpath-cgroup-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
        write("memory.max", "1000000\n");
        write("memory.current", "600000\n");
        write(
            "memory.stat",
            "anon 300000\ninactive_file 200000\nactive_file 100000\n",
        );
        assert_eq!(Hierarchy::V2.room(&dir), Some(1_000_000 - 400_000));
        write("memory.max", "max\n");
        assert_eq!(Hierarchy::V2.room(&dir), None, "no limit");
        write("memory.limit_in_bytes", "9223372036854771712\n");
        write("memory.usage_in_bytes", "5\n");
        assert_eq!(Hierarchy::V1Memory.room(&dir), None, "v1's no limit");
        write("memory.limit_in_bytes", "4096\n");
        write("memory.stat", "total_inactive_file 5\n");
        assert_eq!(Hierarchy::V1Memory.room(&dir), Some(4096));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
