//! How much memory the machine can still give this process, so that a
//! judge board too big for it is refused up front.

/// Bytes available to this process: Linux's `MemAvailable` plus free swap,
/// capped by the room left under the cgroup's (v2) limit when it has one,
/// as in a container. `None` where the kernel does not say.
pub fn available_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib = |name: &str| {
        meminfo.lines().find_map(|line| {
            let value = line.strip_prefix(name)?.strip_prefix(':')?;
            value.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()
        })
    };
    let mut bytes = (kib("MemAvailable")? + kib("SwapFree").unwrap_or(0)) * 1024;
    if let Some(room) = cgroup_room() {
        bytes = bytes.min(room);
    }
    Some(bytes)
}

/// `memory.max` less `memory.current` of this process's cgroup (v2), when
/// it is limited ("max" means it is not).
fn cgroup_room() -> Option<u64> {
    let read = |name: &str| -> Option<u64> {
        std::fs::read_to_string(format!("/sys/fs/cgroup/{name}"))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    Some(read("memory.max")?.saturating_sub(read("memory.current")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_linux_machine_has_some_memory_and_not_an_absurd_amount() {
        if cfg!(target_os = "linux") {
            let bytes = available_bytes().expect("/proc/meminfo names MemAvailable");
            assert!(bytes > 1 << 20, "{bytes} bytes");
            assert!(bytes < 1 << 50, "{bytes} bytes");
        }
    }
}
