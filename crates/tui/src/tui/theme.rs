//! Styles by meaning. Panes ask `theme.style(Role::GateFailed)`; the colours live in
//! `themes/*.toml` (compiled in, overridable from the config dir), and NO_COLOR or a terminal
//! without truecolor changes them here, in one place.

use std::collections::HashMap;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Text,
    Muted,
    Title,
    Border,
    BorderFocus,
    Selected,
    Key,
    Footer,
    Attention,
    Error,
    Ok,
    GatePassed,
    GateFailed,
    GatePartial,
    /// A gate its interval could not decide: never drawn like a pass (issue 40).
    GateInconclusive,
    GatePending,
    StageDone,
    StageCurrent,
    StagePending,
    StageFailed,
    Heading,
    Emphasis,
    Chart,
    /// A number in the paper that no registry value supports.
    Unverified,
    /// A number in the paper that a measured value supports.
    Verified,
    /// A tool call (MCP) in the Events pane.
    ToolCall,
    /// Markdown `**strong**` text, and table headers.
    MdStrong,
    /// Markdown `*emphasis*`.
    MdEmphasis,
    /// Markdown `` `code` `` and fenced code blocks.
    MdCode,
    /// Table borders and `---` rules in rendered Markdown.
    MdRule,
    /// Text that matches the search being typed or kept (`/`).
    SearchMatch,
}

#[derive(Debug, Deserialize, Default)]
struct RoleSpec {
    fg: Option<String>,
    bg: Option<String>,
    #[serde(default)]
    mods: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct ThemeFile {
    roles: HashMap<Role, RoleSpec>,
}

pub(crate) const BUILTIN: &[(&str, &str)] = &[
    ("dark", include_str!("../../../../themes/dark.toml")),
    ("light", include_str!("../../../../themes/light.toml")),
    ("mono", include_str!("../../../../themes/mono.toml")),
];

/// How many colours the terminal takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorDepth {
    TrueColor,
    Ansi256,
    None,
}

impl ColorDepth {
    /// From the environment: NO_COLOR wins; COLORTERM=truecolor|24bit means 24-bit.
    pub fn detect() -> ColorDepth {
        if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
            return ColorDepth::None;
        }
        match std::env::var("COLORTERM").as_deref() {
            Ok("truecolor" | "24bit") => ColorDepth::TrueColor,
            _ => ColorDepth::Ansi256,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Theme {
    styles: HashMap<Role, Style>,
    /// What the terminal takes; the highlighter degrades its colours the same way.
    pub depth: ColorDepth,
}

impl Theme {
    /// Parse a theme file; unknown colour names are errors that say which role.
    pub fn parse(text: &str, depth: ColorDepth) -> Result<Theme, String> {
        let file: ThemeFile = toml::from_str(text).map_err(|e| e.to_string())?;
        let mut styles = HashMap::new();
        for (role, spec) in file.roles {
            let mut style = Style::default();
            if depth != ColorDepth::None {
                if let Some(fg) = &spec.fg {
                    style = style.fg(color(fg, depth)
                        .ok_or_else(|| format!("{role:?}: unknown colour `{fg}`"))?);
                }
                if let Some(bg) = &spec.bg {
                    style = style.bg(color(bg, depth)
                        .ok_or_else(|| format!("{role:?}: unknown colour `{bg}`"))?);
                }
            }
            for m in &spec.mods {
                style = style.add_modifier(
                    modifier(m).ok_or_else(|| format!("{role:?}: unknown modifier `{m}`"))?,
                );
            }
            styles.insert(role, style);
        }
        Ok(Theme { styles, depth })
    }

    /// A built-in theme by name (`dark`, `light`, `mono`); NO_COLOR selects mono's look.
    pub fn builtin(name: &str, depth: ColorDepth) -> Option<Theme> {
        let name = if depth == ColorDepth::None {
            "mono"
        } else {
            name
        };
        let text = BUILTIN.iter().find(|(n, _)| *n == name)?.1;
        Theme::parse(text, depth).ok()
    }

    pub fn style(&self, role: Role) -> Style {
        self.styles.get(&role).copied().unwrap_or_default()
    }
}

fn modifier(name: &str) -> Option<Modifier> {
    Some(match name {
        "bold" => Modifier::BOLD,
        "dim" => Modifier::DIM,
        "italic" => Modifier::ITALIC,
        "underlined" => Modifier::UNDERLINED,
        "reversed" => Modifier::REVERSED,
        _ => return None,
    })
}

fn color(name: &str, depth: ColorDepth) -> Option<Color> {
    if let Some(hex) = name.strip_prefix('#') {
        let v = u32::from_str_radix(hex, 16)
            .ok()
            .filter(|_| hex.len() == 6)?;
        let (r, g, b) = ((v >> 16) as u8, (v >> 8) as u8, v as u8);
        return Some(match depth {
            ColorDepth::TrueColor => Color::Rgb(r, g, b),
            _ => Color::Indexed(to_256(r, g, b)),
        });
    }
    if let Ok(i) = name.parse::<u8>() {
        return Some(Color::Indexed(i));
    }
    name.replace('_', "").parse::<Color>().ok()
}

/// The nearest colour of the xterm 6×6×6 cube, for terminals without truecolor.
pub(crate) fn to_256(r: u8, g: u8, b: u8) -> u8 {
    let q = |c: u8| {
        if c < 48 {
            0
        } else if c < 115 {
            1
        } else {
            (c - 35) / 40
        }
    };
    16 + 36 * q(r) + 6 * q(g) + q(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_parse_at_every_depth() {
        for (name, _) in BUILTIN {
            for depth in [ColorDepth::TrueColor, ColorDepth::Ansi256, ColorDepth::None] {
                assert!(Theme::builtin(name, depth).is_some(), "{name} {depth:?}");
            }
        }
    }

    #[test]
    fn inconclusive_never_looks_like_a_pass_or_a_failure() {
        for (name, _) in BUILTIN {
            for depth in [ColorDepth::TrueColor, ColorDepth::Ansi256, ColorDepth::None] {
                let t = Theme::builtin(name, depth).unwrap();
                let inc = t.style(Role::GateInconclusive);
                assert_ne!(inc, Style::default(), "{name} {depth:?}: unstyled");
                for other in [Role::GatePassed, Role::GateFailed, Role::GatePending] {
                    assert_ne!(inc, t.style(other), "{name} {depth:?}: like {other:?}");
                }
            }
        }
    }

    #[test]
    fn colours_degrade_and_no_color_strips_them() {
        let t = Theme::builtin("dark", ColorDepth::Ansi256).unwrap();
        assert_eq!(
            t.style(Role::Selected).bg,
            Some(Color::Indexed(to_256(0x24, 0x34, 0x4d)))
        );
        let t = Theme::builtin("dark", ColorDepth::TrueColor).unwrap();
        assert_eq!(
            t.style(Role::Selected).bg,
            Some(Color::Rgb(0x24, 0x34, 0x4d))
        );
        let t = Theme::builtin("dark", ColorDepth::None).unwrap();
        assert_eq!(t.style(Role::GateFailed).fg, None);
        assert!(
            t.style(Role::GateFailed)
                .add_modifier
                .contains(Modifier::BOLD)
        );
        assert_eq!(to_256(255, 0, 0), 196);
        assert!(
            Theme::parse(
                "[roles]\ntext = { fg = \"chartreuse-ish\" }",
                ColorDepth::TrueColor
            )
            .is_err()
        );
    }
}
