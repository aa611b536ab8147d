//! Reading BVH text: the hierarchy, then the motion rows, with errors that name the line and
//! what was expected.

use super::{Bvh, BvhError, Channel, MAX_FRAMES, MAX_NODES, Node};

struct Tokens<'a> {
    path: &'a str,
    items: Vec<(&'a str, usize)>,
    at: usize,
    last_line: usize,
}

impl<'a> Tokens<'a> {
    fn err(&self, line: usize, message: String) -> BvhError {
        BvhError {
            path: self.path.into(),
            line,
            message,
        }
    }

    fn next(&mut self, what: &str) -> Result<(&'a str, usize), BvhError> {
        let t = self.items.get(self.at).copied().ok_or_else(|| {
            self.err(
                self.last_line,
                format!("expected {what}, found the end of the file"),
            )
        })?;
        self.at += 1;
        Ok(t)
    }

    fn expect(&mut self, word: &str) -> Result<usize, BvhError> {
        let (t, line) = self.next(&format!("`{word}`"))?;
        if t.eq_ignore_ascii_case(word) {
            Ok(line)
        } else {
            Err(self.err(line, format!("expected `{word}`, found `{t}`")))
        }
    }

    fn number(&mut self, what: &str) -> Result<f64, BvhError> {
        let (t, line) = self.next(what)?;
        let v: f64 = t
            .parse()
            .map_err(|_| self.err(line, format!("expected {what} (a number), found `{t}`")))?;
        if !v.is_finite() || v.abs() > 1e9 {
            return Err(self.err(line, format!("expected {what} within ±1e9, found `{t}`")));
        }
        Ok(v)
    }

    fn offset(&mut self) -> Result<[f64; 3], BvhError> {
        self.expect("OFFSET")?;
        Ok([
            self.number("the offset's x")?,
            self.number("the offset's y")?,
            self.number("the offset's z")?,
        ])
    }
}

/// Parses BVH text; `path` is only used in messages.
pub fn parse(text: &str, path: &str) -> Result<Bvh, BvhError> {
    let lines: Vec<&str> = text.lines().collect();
    let motion_line = lines
        .iter()
        .position(|l| l.trim().eq_ignore_ascii_case("MOTION"))
        .ok_or_else(|| BvhError {
            path: path.into(),
            line: lines.len().max(1),
            message: "expected a `MOTION` section".into(),
        })?;
    let mut tokens = Tokens {
        path,
        items: lines[..motion_line]
            .iter()
            .enumerate()
            .flat_map(|(i, l)| l.split_whitespace().map(move |t| (t, i + 1)))
            .collect(),
        at: 0,
        last_line: motion_line + 1,
    };
    tokens.expect("HIERARCHY")?;
    let mut nodes: Vec<Node> = Vec::new();
    let (word, line) = tokens.next("`ROOT`")?;
    if !word.eq_ignore_ascii_case("ROOT") {
        return Err(tokens.err(line, format!("expected `ROOT`, found `{word}`")));
    }
    parse_node(&mut tokens, &mut nodes, None)?;
    if let Some((t, line)) = tokens.items.get(tokens.at) {
        return Err(tokens.err(
            *line,
            format!("expected `MOTION` after the hierarchy, found `{t}`"),
        ));
    }
    // MOTION: "Frames: n", "Frame Time: t", then one row per frame.
    let header = |i: usize, key: &str| -> Result<f64, BvhError> {
        let l = lines.get(i).map(|l| l.trim()).unwrap_or("");
        let bad = || BvhError {
            path: path.into(),
            line: i + 1,
            message: format!("expected `{key} <number>`, found `{l}`"),
        };
        let rest = l
            .strip_prefix(key)
            .or_else(|| l.strip_prefix(&key.to_lowercase()))
            .ok_or_else(bad)?;
        let v: f64 = rest.trim().parse().map_err(|_| bad())?;
        if v.is_finite() { Ok(v) } else { Err(bad()) }
    };
    let declared = header(motion_line + 1, "Frames:")?;
    let frame_time = header(motion_line + 2, "Frame Time:")?;
    if !(frame_time > 0.0 && frame_time <= 10.0) {
        return Err(BvhError {
            path: path.into(),
            line: motion_line + 3,
            message: format!("expected a frame time in (0, 10] s, found {frame_time}"),
        });
    }
    let width: usize = nodes.iter().map(|n| n.channels.len()).sum();
    let mut frames = Vec::new();
    for (i, l) in lines.iter().enumerate().skip(motion_line + 3) {
        if l.trim().is_empty() {
            continue;
        }
        let row: Result<Vec<f64>, _> = l.split_whitespace().map(str::parse::<f64>).collect();
        let row = row.map_err(|_| BvhError {
            path: path.into(),
            line: i + 1,
            message: format!(
                "expected {width} numbers (one per channel), found `{}`",
                l.trim()
            ),
        })?;
        if row.len() != width {
            return Err(BvhError {
                path: path.into(),
                line: i + 1,
                message: format!(
                    "expected {width} values (one per channel), found {}",
                    row.len()
                ),
            });
        }
        if !row.iter().all(|v| v.is_finite() && v.abs() <= 1e9) {
            return Err(BvhError {
                path: path.into(),
                line: i + 1,
                message: "expected finite values within ±1e9".into(),
            });
        }
        if frames.len() == MAX_FRAMES {
            return Err(BvhError {
                path: path.into(),
                line: i + 1,
                message: format!("expected at most {MAX_FRAMES} frames"),
            });
        }
        frames.push(row);
    }
    let mut warnings = Vec::new();
    if declared != frames.len() as f64 {
        warnings.push(format!(
            "{path}:{}: the file declares {declared} frames and holds {}; read what is there",
            motion_line + 2,
            frames.len()
        ));
    }
    if frames.is_empty() {
        return Err(BvhError {
            path: path.into(),
            line: motion_line + 3,
            message: "expected at least one frame of motion".into(),
        });
    }
    Ok(Bvh {
        nodes,
        frame_time,
        frames,
        warnings,
    })
}

fn parse_node(
    t: &mut Tokens,
    nodes: &mut Vec<Node>,
    parent: Option<usize>,
) -> Result<(), BvhError> {
    let (name, line) = t.next("a node name")?;
    if nodes.len() == MAX_NODES {
        return Err(t.err(line, format!("expected at most {MAX_NODES} nodes")));
    }
    if nodes.iter().any(|n| n.name == name) {
        return Err(t.err(line, format!("node name `{name}` used twice")));
    }
    t.expect("{")?;
    let offset = t.offset()?;
    let index = nodes.len();
    nodes.push(Node {
        name: name.into(),
        parent,
        offset,
        channels: Vec::new(),
        end_site: None,
    });
    loop {
        let (word, line) = t.next("`JOINT`, `End Site`, `CHANNELS` or `}`")?;
        match word.to_ascii_uppercase().as_str() {
            "CHANNELS" => {
                let n = t.number("the channel count")?;
                if !(0.0..=6.0).contains(&n) || n.fract() != 0.0 {
                    return Err(t.err(line, format!("expected 0 to 6 channels, found {n}")));
                }
                let mut channels = Vec::new();
                for _ in 0..n as usize {
                    let (c, line) = t.next("a channel name")?;
                    let axis = match c.as_bytes().first().map(u8::to_ascii_uppercase) {
                        Some(b'X') => 0,
                        Some(b'Y') => 1,
                        Some(b'Z') => 2,
                        _ => 3,
                    };
                    let lower = c.to_ascii_lowercase();
                    let channel = if axis < 3 && lower.ends_with("position") {
                        Channel::Position(axis)
                    } else if axis < 3 && lower.ends_with("rotation") {
                        Channel::Rotation(axis)
                    } else {
                        return Err(t.err(
                            line,
                            format!(
                                "expected a channel such as `Xposition` or `Zrotation`, found `{c}`"
                            ),
                        ));
                    };
                    channels.push(channel);
                }
                nodes[index].channels = channels;
            }
            "JOINT" => parse_node(t, nodes, Some(index))?,
            "END" => {
                t.expect("Site")?;
                t.expect("{")?;
                let end = t.offset()?;
                t.expect("}")?;
                nodes[index].end_site = Some(end);
            }
            "}" => return Ok(()),
            _ => {
                return Err(t.err(
                    line,
                    format!("expected `JOINT`, `End Site`, `CHANNELS` or `}}`, found `{word}`"),
                ));
            }
        }
    }
}
