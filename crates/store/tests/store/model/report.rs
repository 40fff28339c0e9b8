//! How a disagreement is told: every call of the sequence that led to
//! it, what the model answered and what each backend did, bytes shown as
//! text and times from [`NOW`].

use super::*;

/// Fails unless every backend `seen` what the model `expected`, saying
/// how those that differ do, after the calls that led there.
pub(super) fn agree<T: PartialEq + Debug>(
    calls: &[(usize, u64, Option<Call>)],
    what: &str,
    expected: &T,
    names: &[&str],
    seen: &[T],
) -> Result<(), TestCaseError> {
    if seen.iter().all(|seen| seen == expected) {
        return Ok(());
    }
    let mut message = format!(
        "the backends and the model disagree on the {what} the last of these calls \
         (times from T = {NOW}):\n"
    );
    for (step, now, call) in calls {
        message += &match call {
            Some(call) => format!("{step} at T+{}: {}\n", now - NOW, readable(call)),
            None => format!("{step}: time moves to T+{}\n", now - NOW),
        };
    }
    message += &format!("the model: {}\n", readable(expected));
    for (name, seen) in names.iter().zip(seen) {
        if seen == expected {
            message += &format!("{name}: as the model\n");
        } else {
            message += &format!("{name}: {}\n", readable(seen));
        }
    }
    Err(TestCaseError::fail(message))
}

/// `value` as `Debug` shows it, with lists of bytes as text and times
/// from [`NOW`]: every body, answer and fingerprint here is ASCII.
fn readable(value: &impl Debug) -> String {
    let debug = format!("{value:?}");
    let mut out = String::new();
    let mut rest = debug.as_str();
    while let Some(at) = rest.find(|c: char| c == '[' || c.is_ascii_digit()) {
        out += &rest[..at];
        rest = &rest[at..];
        if let Some(list) = rest.strip_prefix('[')
            && let Some(end) = list.find(']')
            && let Ok(bytes) = list[..end]
                .split(", ")
                .map(str::parse::<u8>)
                .collect::<Result<Vec<_>, _>>()
        {
            out += &format!("{:?}", String::from_utf8_lossy(&bytes));
            rest = &list[end + 1..];
            continue;
        }
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len())
            .max(1);
        match rest[..digits].parse::<u64>() {
            Ok(time) if (NOW..NOW + 10_000_000).contains(&time) => {
                out += &format!("T+{}", time - NOW);
            }
            _ => out += &rest[..digits],
        }
        rest = &rest[digits..];
    }
    out + rest
}
