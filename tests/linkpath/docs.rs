//! The documents a user reads on a fresh clone: every relative link in the
//! top-level Markdown files and in `docs/` resolves inside the repository
//! (and its `#anchor` names a heading, where it points into Markdown), and
//! the files that the shell commands of the README and of `docs/` read
//! exist.
//!
//! A small reader for the parts of Markdown and shell the documents use,
//! with tests of its own that show it catches what it is for; the
//! README's picture, drawn again from its request; the `curl` examples of
//! the README and of `docs/` sent to the binary, each answered as shown;
//! and the configuration table of `docs/operations.md`, which is
//! `linkpath serve --help`.

use crate::support::{Process, linkpath, run};
use linkpath_api::{Limits, render_body};
use linkpath_engine::Stop;
use serde_json::Value;
use std::collections::HashSet;
use std::fs;
use std::path::{Component, Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files checked, relative to the root: `*.md` at the top
/// and everything under `docs/`.
fn documents(root: &Path) -> Vec<PathBuf> {
    fn markdown_in(dir: &Path, deep: bool, found: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if deep {
                    markdown_in(&path, deep, found);
                }
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    markdown_in(root, false, &mut found);
    markdown_in(&root.join("docs"), true, &mut found);
    let mut found: Vec<PathBuf> = found
        .into_iter()
        .map(|p| p.strip_prefix(root).expect("under the root").to_path_buf())
        .collect();
    found.sort();
    found
}

/// The documents whose commands and examples are checked: the README and
/// everything under `docs/`, each with its text.
fn readme_and_docs(root: &Path) -> Vec<(PathBuf, String)> {
    documents(root)
        .into_iter()
        .filter(|doc| doc == Path::new("README.md") || doc.starts_with("docs"))
        .map(|doc| {
            let text = fs::read_to_string(root.join(&doc)).expect("a readable document");
            (doc, text)
        })
        .collect()
}

/// A fence line's marker (the run of backticks or tildes), if it is one.
fn fence(line: &str) -> Option<&str> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let marker = trimmed.chars().next().filter(|&c| c == '`' || c == '~')?;
    let run = trimmed.len() - trimmed.trim_start_matches(marker).len();
    (run >= 3).then(|| &trimmed[..run])
}

/// The fenced code blocks of `text`: (info string, body).
fn code_blocks(text: &str) -> Vec<(String, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, String, String)> = None;
    for line in text.lines() {
        match (&mut open, fence(line)) {
            (None, Some(marker)) => {
                let info = line
                    .trim_start()
                    .trim_start_matches(marker.chars().next().unwrap());
                open = Some((marker.to_owned(), info.trim().to_owned(), String::new()));
            }
            (Some((marker, _, _)), Some(closing))
                if closing.starts_with(marker.as_str()) && line.trim().len() == closing.len() =>
            {
                let (_, info, body) = open.take().unwrap();
                blocks.push((info, body));
            }
            (Some((_, _, body)), _) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    blocks
}

/// `text` with its fenced blocks blanked out (newlines kept).
fn outside_fences(text: &str) -> String {
    let mut outside = String::with_capacity(text.len());
    let mut open: Option<String> = None;
    for line in text.lines() {
        match (&open, fence(line)) {
            (None, Some(marker)) => open = Some(marker.to_owned()),
            (Some(marker), Some(closing))
                if closing.starts_with(marker.as_str()) && line.trim().len() == closing.len() =>
            {
                open = None
            }
            (None, None) => outside.push_str(line),
            _ => {}
        }
        outside.push('\n');
    }
    outside
}

/// `text` with fenced blocks and code spans blanked out (newlines kept), so
/// that only prose is searched for links.
fn prose(text: &str) -> String {
    let outside = outside_fences(text);
    // Code spans: a run of n backticks up to the next run of exactly n.
    let chars: Vec<char> = outside.chars().collect();
    let run_at = |i: usize| chars[i..].iter().take_while(|&&c| c == '`').count();
    let mut out = String::with_capacity(outside.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let n = run_at(i);
        let mut j = i + n;
        let close = loop {
            if j >= chars.len() {
                break None;
            }
            if chars[j] == '`' {
                let m = run_at(j);
                if m == n {
                    break Some(j);
                }
                j += m;
            } else {
                j += 1;
            }
        };
        match close {
            Some(j) => {
                for &c in &chars[i..j + n] {
                    out.push(if c == '\n' { '\n' } else { ' ' });
                }
                i = j + n;
            }
            None => {
                // No closing run: the backticks are literal.
                out.extend(&chars[i..i + n]);
                i += n;
            }
        }
    }
    out
}

/// Link targets in prose: inline links and images `[text](target "title")`
/// and reference definitions `[label]: target`.
fn links(prose: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = prose;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        // The target runs to the `)` that closes the link, parentheses
        // nested inside it allowed.
        let mut depth = 0;
        let end = rest
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '(' => depth += 1,
                    ')' if depth == 0 => return true,
                    ')' => depth -= 1,
                    _ => {}
                }
                false
            })
            .map_or(rest.len(), |(i, _)| i);
        let inside = rest[..end].trim();
        let target = match inside.strip_prefix('<') {
            Some(angled) => angled.split('>').next().unwrap_or(""),
            None => inside.split_whitespace().next().unwrap_or(""),
        };
        targets.push(target.to_owned());
        rest = &rest[end..];
    }
    for line in prose.lines() {
        let trimmed = line.trim_start();
        if line.len() - trimmed.len() > 3 || !trimmed.starts_with('[') {
            continue;
        }
        if let Some(close) = trimmed.find("]:")
            && let Some(target) = trimmed[close + 2..].split_whitespace().next()
        {
            targets.push(target.trim_matches(['<', '>']).to_owned());
        }
    }
    targets
}

/// GitHub's anchor for a heading: lower case, spaces to `-`, other
/// punctuation dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a document's ATX headings, repeats numbered as GitHub
/// numbers them (`name`, `name-1`, …).
fn anchors(text: &str) -> HashSet<String> {
    let mut found = HashSet::new();
    for line in outside_fences(text).lines() {
        let trimmed = line.trim_start();
        let level = trimmed.len() - trimmed.trim_start_matches('#').len();
        if !(1..=6).contains(&level) || line.len() - trimmed.len() > 3 {
            continue;
        }
        let title = &trimmed[level..];
        if !(title.is_empty() || title.starts_with(' ')) {
            continue;
        }
        let base = slug(title.trim().trim_end_matches('#'));
        let mut anchor = base.clone();
        let mut n = 0;
        while !found.insert(anchor.clone()) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
    }
    found
}

/// `%XX` escapes decoded.
fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether `path`, relative to the root, stays inside it.
fn inside(path: &Path) -> bool {
    let mut depth = 0i32;
    for component in path.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::ParentDir => depth -= 1,
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return false,
        }
        if depth < 0 {
            return false;
        }
    }
    true
}

/// What is wrong with the links of `doc` (relative to the root), whose text
/// is `text`: a target outside the repository, missing, or an anchor no
/// heading has. `read` gives another document's text, by root-relative
/// path, or `None` when there is no such file.
fn broken_links(
    doc: &Path,
    text: &str,
    exists: &dyn Fn(&Path) -> bool,
    read: &dyn Fn(&Path) -> Option<String>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let dir = doc.parent().unwrap_or(Path::new(""));
    for target in links(&prose(text)) {
        let scheme = target.split_once(':').is_some_and(|(s, _)| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        });
        if target.is_empty() || scheme || target.starts_with("//") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((path, anchor)) => (path, Some(anchor)),
            None => (target.as_str(), None),
        };
        let (file, file_text) = if path.is_empty() {
            (doc.to_path_buf(), Some(text.to_owned()))
        } else {
            let path = percent_decoded(path);
            let file = if let Some(from_root) = path.strip_prefix('/') {
                PathBuf::from(from_root)
            } else {
                dir.join(&path)
            };
            if !inside(&file) {
                problems.push(format!("{}: {target} leaves the repository", doc.display()));
                continue;
            }
            if !exists(&file) {
                problems.push(format!("{}: {target}: no such file", doc.display()));
                continue;
            }
            let markdown = file.extension().is_some_and(|e| e == "md");
            (file.clone(), if markdown { read(&file) } else { None })
        };
        if let (Some(anchor), Some(file_text)) = (anchor, file_text)
            && !anchor.is_empty()
            && !anchors(&file_text).contains(&percent_decoded(anchor))
        {
            problems.push(format!(
                "{}: {target}: {} has no heading #{anchor}",
                doc.display(),
                file.display()
            ));
        }
    }
    problems
}

/// A shell word, and whether any of it was quoted.
#[derive(Debug, PartialEq)]
struct Word {
    text: String,
    quoted: bool,
}

/// The commands of a `sh` block, each as its words; operators (`|`, `&&`,
/// `;`, `<`, `>`) are words of their own and end nothing. A block whose
/// lines start with a `$ ` prompt keeps only the prompted lines (and their
/// continuations): the others are output.
fn commands(block: &str) -> Vec<Vec<Word>> {
    let prompted = block.lines().any(|l| l.starts_with("$ "));
    let mut script = String::new();
    let mut continued = false;
    for line in block.lines() {
        if prompted {
            match line.strip_prefix("$ ") {
                Some(command) => script.push_str(command),
                None if continued => script.push_str(line),
                None => {
                    continued = false;
                    continue;
                }
            }
        } else {
            script.push_str(line);
        }
        continued = line.ends_with('\\');
        script.push('\n');
    }

    let mut all = Vec::new();
    let mut words: Vec<Word> = Vec::new();
    let mut word: Option<Word> = None;
    let mut chars = script.chars().peekable();
    let end_word = |word: &mut Option<Word>, words: &mut Vec<Word>| {
        if let Some(w) = word.take() {
            words.push(w);
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                let w = word.get_or_insert(Word {
                    text: String::new(),
                    quoted: true,
                });
                w.quoted = true;
                for q in chars.by_ref() {
                    if q == c {
                        break;
                    }
                    w.text.push(q);
                }
            }
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(escaped) => word
                    .get_or_insert(Word {
                        text: String::new(),
                        quoted: true,
                    })
                    .text
                    .push(escaped),
            },
            '#' if word.is_none() => while chars.next_if(|&c| c != '\n').is_some() {},
            '\n' => {
                end_word(&mut word, &mut words);
                if !words.is_empty() {
                    all.push(std::mem::take(&mut words));
                }
            }
            ' ' | '\t' => end_word(&mut word, &mut words),
            '|' | '&' | ';' | '<' | '>' => {
                end_word(&mut word, &mut words);
                let mut op = c.to_string();
                while let Some(next) = chars.next_if(|&n| "|&>".contains(n)) {
                    op.push(next);
                }
                words.push(Word {
                    text: op,
                    quoted: false,
                });
            }
            _ => word
                .get_or_insert(Word {
                    text: String::new(),
                    quoted: false,
                })
                .text
                .push(c),
        }
    }
    end_word(&mut word, &mut words);
    if !words.is_empty() {
        all.push(words);
    }
    all
}

/// The files a command reads, as written: `curl -d @FILE`, `< FILE`, the
/// FILE of `linkpath solve|render`, and unquoted words that are paths
/// under a top-level entry of the repository (scripts run, directories
/// given). Build outputs (`target/`) and what `>` writes are not reads.
fn files_read(words: &[Word], top_level: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut files = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let previous = i.checked_sub(1).map(|p| words[p].text.as_str());
        let text = word.text.as_str();
        if previous.is_some_and(|p| p.starts_with('>') || p.ends_with('>')) {
            continue;
        }
        if previous == Some("<") {
            files.push(text.to_owned());
            continue;
        }
        if let Some(file) = text.strip_prefix('@') {
            files.push(file.to_owned());
            continue;
        }
        let subcommand = matches!(previous, Some("solve" | "render"))
            && i >= 2
            && (words[i - 2].text == "--" || words[i - 2].text.ends_with("linkpath"));
        if subcommand && !text.starts_with('-') {
            files.push(text.to_owned());
            continue;
        }
        let first = text.split('/').next().unwrap_or("");
        if !word.quoted && text.contains('/') && first != "target" && top_level(first) {
            files.push(text.to_owned());
        }
    }
    files
}

/// The files the `sh` blocks of `text` read that do not exist.
fn missing_files(text: &str, exists: &dyn Fn(&Path) -> bool) -> Vec<String> {
    let top_level = |first: &str| !first.is_empty() && first != ".." && exists(Path::new(first));
    let mut missing = Vec::new();
    for (info, body) in code_blocks(text) {
        if !matches!(info.as_str(), "sh" | "bash" | "shell" | "console") {
            continue;
        }
        for words in commands(&body) {
            for file in files_read(&words, &top_level) {
                let path = Path::new(&file);
                if !inside(path) || !exists(path) {
                    let line: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
                    missing.push(format!("{file} (in `{}`)", line.join(" ")));
                }
            }
        }
    }
    missing
}

#[test]
fn every_relative_link_resolves_inside_the_repository() {
    let root = root();
    let docs = documents(&root);
    for expected in [
        "README.md",
        "BENCHMARKS.md",
        "CHANGELOG.md",
        "docs/rules.md",
    ] {
        assert!(
            docs.contains(&PathBuf::from(expected)),
            "{expected} is not among the documents checked: {docs:?}"
        );
    }
    let exists = |p: &Path| root.join(p).exists();
    let read = |p: &Path| fs::read_to_string(root.join(p)).ok();
    let mut problems = Vec::new();
    let mut checked = 0;
    for doc in &docs {
        let text = fs::read_to_string(root.join(doc)).expect("a readable document");
        checked += links(&prose(&text)).len();
        problems.extend(broken_links(doc, &text, &exists, &read));
    }
    assert!(
        checked > 20,
        "only {checked} links found: the reader is broken"
    );
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_readmes_commands_read_files_that_exist() {
    let root = root();
    let docs = readme_and_docs(&root);
    for expected in ["README.md", "docs/game-client.md", "docs/operations.md"] {
        assert!(
            docs.iter().any(|(doc, _)| doc == Path::new(expected)),
            "{expected} is not among the documents checked"
        );
    }
    let exists = |p: &Path| root.join(p).exists();
    let missing: Vec<String> = docs
        .iter()
        .flat_map(|(doc, text)| {
            missing_files(text, &exists)
                .into_iter()
                .map(move |m| format!("{}: {m}", doc.display()))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "commands read files that do not exist:\n{}",
        missing.join("\n")
    );
    // The reader sees the commands that read files.
    let top_level = |first: &str| exists(Path::new(first));
    let read: Vec<String> = docs
        .iter()
        .flat_map(|(_, text)| code_blocks(text))
        .filter(|(info, _)| info == "sh")
        .flat_map(|(_, body)| commands(&body))
        .flat_map(|words| files_read(&words, &top_level))
        .collect();
    for expected in [
        "docs/render.json",
        "tests/e2e/",
        "tests/data/http/mahjong_sample.json",
        "scripts/container-test.sh",
    ] {
        assert!(
            read.iter().any(|f| f == expected),
            "{expected} not seen among the files the commands read: {read:?}"
        );
    }
}

#[test]
fn the_readme_picture_is_current() {
    let root = root();
    let request = fs::read(root.join("docs/render.json")).unwrap();
    let picture = fs::read_to_string(root.join("docs/render.svg")).unwrap();
    assert_eq!(
        render_body(&request, &Limits::default(), &Stop::never()).unwrap(),
        picture,
        "regenerate: cargo run --release -- render docs/render.json > docs/render.svg"
    );
}

/// A README `curl` example: the route, the body sent, and the answer shown
/// (with the status after the body when the command prints it).
#[derive(Debug, PartialEq)]
struct Example {
    path: String,
    body: String,
    answer: String,
    with_status: bool,
}

/// The `sh` blocks that are one `curl` of `localhost:8080` with a body
/// written out (`-d '…'`), whose output is not redirected, each with the
/// block that follows it: the answer.
fn curl_examples(text: &str) -> Vec<Example> {
    let blocks = code_blocks(text);
    let mut examples = Vec::new();
    for (i, (info, body)) in blocks.iter().enumerate() {
        let commands = commands(body);
        let [words] = commands.as_slice() else {
            continue;
        };
        if info != "sh"
            || words[0].text != "curl"
            || words.iter().any(|w| !w.quoted && w.text.starts_with('>'))
        {
            continue;
        }
        // A shell variable (`$ID` in the URL, `$TOKEN` in a header) names
        // what an earlier command made: the answer depends on that run,
        // not on the body.
        if words.iter().any(|w| w.text.contains('$')) {
            continue;
        }
        let Some(url) = words.iter().find(|w| w.text.starts_with("localhost:8080/")) else {
            continue;
        };
        let Some(data) = words.iter().position(|w| w.text == "-d") else {
            continue;
        };
        let body = &words[data + 1].text;
        let Some((_, answer)) = blocks.get(i + 1) else {
            continue;
        };
        if body.starts_with('@') {
            continue;
        }
        examples.push(Example {
            path: url.text["localhost:8080".len()..].to_owned(),
            body: body.clone(),
            answer: answer.trim().to_owned(),
            with_status: words.iter().any(|w| w.text.contains("%{http_code}")),
        });
    }
    examples
}

/// `actual` with what varies from run to run taken from `shown`, where
/// both have it: `elapsed_ms`, and the random ids, secrets and times of
/// what a request made, where the two have the same form.
fn steady(actual: &mut Value, shown: &Value) {
    const MADE: [&str; 4] = ["id", "token", "created_at", "updated_at"];
    let same_form = |a: &Value, b: &Value| match (a.as_str(), b.as_str()) {
        (Some(a), Some(b)) => {
            a.len() == b.len()
                && a.bytes()
                    .zip(b.bytes())
                    .all(|(x, y)| x == y || x.is_ascii_hexdigit() && y.is_ascii_hexdigit())
        }
        _ => false,
    };
    match (actual, shown) {
        (Value::Object(actual), Value::Object(shown)) => {
            for (key, value) in actual.iter_mut() {
                let Some(expected) = shown.get(key) else {
                    continue;
                };
                let made = MADE.contains(&key.as_str()) && same_form(value, expected);
                if made || key == "elapsed_ms" && value.is_u64() && expected.is_u64() {
                    *value = expected.clone();
                } else {
                    steady(value, expected);
                }
            }
        }
        (Value::Array(actual), Value::Array(shown)) => {
            for (value, expected) in actual.iter_mut().zip(shown) {
                steady(value, expected);
            }
        }
        _ => {}
    }
}

#[tokio::test]
async fn the_readmes_answers_are_real() {
    let docs = readme_and_docs(&root());
    let examples: Vec<(&Path, Example)> = docs
        .iter()
        .flat_map(|(doc, text)| {
            curl_examples(text)
                .into_iter()
                .map(move |e| (doc.as_path(), e))
        })
        .collect();
    for (doc, at_least) in [("README.md", 3), ("docs/game-client.md", 10)] {
        let found = examples
            .iter()
            .filter(|(d, _)| *d == Path::new(doc))
            .count();
        assert!(found >= at_least, "{found} examples in {doc}: {examples:?}");
    }
    let server = Process::serve("readme", &[]).await;
    let mut wrong = Vec::new();
    for (doc, example) in &examples {
        let body: Value = serde_json::from_str(&example.body)
            .unwrap_or_else(|e| panic!("{}: the body is not JSON: {e}", example.path));
        let reply = server.post(&example.path, &body).await;
        let (shown, status) = match example.answer.rsplit_once(' ') {
            Some((json, status)) if example.with_status => (json, status.parse().unwrap()),
            _ => (example.answer.as_str(), 200),
        };
        let shown: Value = serde_json::from_str(shown)
            .unwrap_or_else(|e| panic!("{}: the answer shown is not JSON: {e}", example.path));
        let mut actual = reply.json();
        steady(&mut actual, &shown);
        if actual != shown || reply.status != status {
            wrong.push(format!(
                "{}: {} {}\n  shown: {status} {shown}\n  real:  {} {actual}",
                doc.display(),
                example.path,
                example.body,
                reply.status
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "answers shown that are not real:\n{}",
        wrong.join("\n")
    );
}

// ---- The reader itself ----

/// A repository of the given files, for the checks' own tests.
fn repository(files: &[&'static str]) -> impl Fn(&Path) -> bool {
    let mut all: HashSet<PathBuf> = HashSet::new();
    for file in files {
        let mut path = PathBuf::new();
        for part in Path::new(file).components() {
            path.push(part);
            all.insert(path.clone());
        }
    }
    move |p: &Path| {
        let mut normal = PathBuf::new();
        for part in p.components() {
            match part {
                Component::CurDir => {}
                Component::ParentDir => {
                    normal.pop();
                }
                _ => normal.push(part),
            }
        }
        all.contains(&normal)
    }
}

#[test]
fn a_broken_link_is_reported() {
    let exists = repository(&["README.md", "docs/rules.md", "tests/data/mahjong.in"]);
    let rules = "# Rules\n\n## Which path\n\n## Which path\n";
    let read = |p: &Path| (p == Path::new("docs/rules.md")).then(|| rules.to_owned());
    let text = "\
# Title

Good: [rules](docs/rules.md), [a sample](./tests/data/mahjong.in),
[which path](docs/rules.md#which-path), [again](docs/rules.md#which-path-1),
[here](#title), [web](https://example.com/x.md), <https://example.com>,
![alt with [brackets] inside](docs/rules.md \"a title\").
`[not a link](nowhere.md)`

```md
[in a code block](nowhere-either.md)
```

Bad: [gone](../shared/rules.md), [missing](request.json),
[no anchor](docs/rules.md#tie-breaking), [no heading](#nothing).

[ref]: docs/missing.md
";
    let problems = broken_links(Path::new("README.md"), text, &exists, &read);
    let named: Vec<&str> = problems
        .iter()
        .map(|p| p.split(": ").nth(1).unwrap_or(""))
        .collect();
    assert_eq!(
        named,
        [
            "../shared/rules.md leaves the repository",
            "request.json",
            "docs/rules.md#tie-breaking",
            "#nothing",
            "docs/missing.md",
        ],
        "{problems:#?}"
    );
}

#[test]
fn links_from_a_subfolder_are_relative_to_it() {
    let exists = repository(&["README.md", "docs/rules.md", "tests/data/mahjong.in"]);
    let read = |_: &Path| None;
    let text =
        "[up](../README.md), [sample](../tests/data/mahjong.in), [wrong](tests/data/mahjong.in)";
    let problems = broken_links(Path::new("docs/rules.md"), text, &exists, &read);
    assert_eq!(
        problems,
        ["docs/rules.md: tests/data/mahjong.in: no such file"]
    );
}

#[test]
fn slugs_are_githubs() {
    assert_eq!(
        slug("1. Mahjong connect (POJ 1101)"),
        "1-mahjong-connect-poj-1101"
    );
    assert_eq!(slug("4. Curling 2.0 (POJ 3009)"), "4-curling-20-poj-3009");
    assert_eq!(slug("The judges' formats"), "the-judges-formats");
    assert_eq!(slug("`include_path` and 连连看"), "include_path-and-连连看");
    let found = anchors("# A\n\n```\n# not a heading\n```\n\n## A\n#hashtag\n");
    assert_eq!(found, HashSet::from(["a".to_owned(), "a-1".to_owned()]));
}

#[test]
fn a_command_reading_a_missing_file_is_reported() {
    let exists = repository(&["docs/render.json", "tests/data/mahjong.in", "bench/run.sh"]);
    let text = "\
```sh
cargo run --release -- solve request.json
curl -s localhost:8080/v1/render -H 'content-type: application/json' -d @docs/render.json > board.svg
curl -s localhost:8080/v1/solve -d @docs/gone.json
target/release/linkpath judge mahjong < tests/data/mahjong.in
target/release/linkpath judge hdu1175 < tests/data/hdu1175.in
bench/run.sh            # writes target/bench-report.md
bench/missing.sh
```

```sh
$ printf '1 2 \\n' \\
    | target/release/linkpath render docs/none.json
docs/output-not-a-command.json
```

```json
{\"not\": \"sh\", \"file\": \"docs/nothing.json\"}
```
";
    let missing = missing_files(text, &exists);
    let files: Vec<&str> = missing
        .iter()
        .map(|m| m.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "request.json",
            "docs/gone.json",
            "tests/data/hdu1175.in",
            "bench/missing.sh",
            "docs/none.json",
        ],
        "{missing:#?}"
    );
}

#[test]
fn curl_examples_pair_each_command_with_its_answer() {
    let text = "```sh\ncurl -s localhost:8080/v1/moves -d '{\"board\": []}'\n```\n\n```json\n{\"moves\":[]}\n```\n\n\
        ```sh\ncurl -s -w ' %{http_code}\\n' localhost:8080/v1/solve -d '{}'\n```\n\n```\n{} 422\n```\n\n\
        ```sh\ncurl -s localhost:8080/v1/render -d @docs/render.json > board.svg\n```\n\n```sh\nls\n```\n";
    assert_eq!(
        curl_examples(text),
        [
            Example {
                path: "/v1/moves".into(),
                body: "{\"board\": []}".into(),
                answer: "{\"moves\":[]}".into(),
                with_status: false,
            },
            Example {
                path: "/v1/solve".into(),
                body: "{}".into(),
                answer: "{} 422".into(),
                with_status: true,
            },
        ]
    );
    let mut actual = serde_json::json!({"outcome": "unknown", "elapsed_ms": 7, "states": 3});
    steady(
        &mut actual,
        &serde_json::json!({"elapsed_ms": 2, "states": 4}),
    );
    assert_eq!(
        actual,
        serde_json::json!({"outcome": "unknown", "elapsed_ms": 2, "states": 3})
    );
}

#[test]
fn shell_words_keep_quoted_bodies_whole() {
    let block = "curl -s x -d '{\n  \"board\": [\"A A\"]\n}' | jq . # comment\nnext \\\n  line\n";
    let words: Vec<Vec<String>> = commands(block)
        .into_iter()
        .map(|ws| ws.into_iter().map(|w| w.text).collect())
        .collect();
    assert_eq!(
        words,
        [
            vec![
                "curl",
                "-s",
                "x",
                "-d",
                "{\n  \"board\": [\"A A\"]\n}",
                "|",
                "jq",
                "."
            ],
            vec!["next", "line"],
        ]
    );
}

/// Each setting of `linkpath serve --help`: flag, variable and default
/// (if it has one).
fn settings_of_help(help: &str) -> Vec<(String, String, Option<String>)> {
    let mut settings = Vec::new();
    let mut lines = help.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(flag) = line.trim().strip_prefix("--") else {
            continue;
        };
        let flag = format!("--{}", flag.split_whitespace().next().unwrap_or(""));
        let Some(text) = lines.next() else {
            break;
        };
        let Some(variable) = text
            .split("[env: ")
            .nth(1)
            .and_then(|rest| rest.split(['=', ']']).next())
        else {
            continue;
        };
        let default = text
            .split("[default: ")
            .nth(1)
            .and_then(|rest| rest.split(']').next())
            .map(str::to_owned);
        settings.push((flag, variable.to_owned(), default));
    }
    settings
}

/// The configuration table of `docs/operations.md`: variable, flag and
/// default cells of the rows with a flag, backticks taken off.
fn settings_of_operations(operations: &str) -> Vec<(String, String, String)> {
    let section = operations
        .split("\n## Configuration\n")
        .nth(1)
        .expect("a Configuration section")
        .split("\n## ")
        .next()
        .unwrap_or("");
    section
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            if cells.len() < 5 || !cells[2].starts_with("`--") {
                return None;
            }
            let bare = |cell: &str| cell.replace('`', "");
            Some((bare(cells[1]), bare(cells[2]), bare(cells[3])))
        })
        .collect()
}

#[test]
fn the_configuration_table_is_serve_help() {
    let mut help = linkpath();
    help.args(["serve", "--help"]);
    let help = String::from_utf8(run(help, b"").stdout).expect("UTF-8 help");
    let from_help = settings_of_help(&help);
    assert!(from_help.len() > 20, "{from_help:?}");
    let operations =
        fs::read_to_string(root().join("docs/operations.md")).expect("docs/operations.md");
    let table = settings_of_operations(&operations);
    let mut missing = Vec::new();
    for (flag, variable, default) in &from_help {
        match table.iter().find(|(_, f, _)| f == flag) {
            None => missing.push(format!("{flag} ({variable}) is not in the table")),
            Some((v, _, _)) if v != variable => {
                missing.push(format!("{flag}: the table says {v}, --help {variable}"));
            }
            Some((_, _, shown)) => {
                if let Some(default) = default
                    && !shown.contains(default.as_str())
                {
                    missing.push(format!(
                        "{flag}: the table's default {shown:?}, --help's {default}"
                    ));
                }
            }
        }
    }
    for (variable, flag, _) in &table {
        if !from_help.iter().any(|(f, _, _)| f == flag) {
            missing.push(format!(
                "{flag} ({variable}) is in the table, not in --help"
            ));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
