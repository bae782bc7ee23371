//! Declarations read from TOML manifests with their lines (Cargo.toml,
//! pyproject.toml): toml's spanned document, so each dependency says the
//! lines of its key and value.

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::model::{Declared, ParseFailure, line_of, too_deep};

/// A manifest parsed with spans, and its text for line numbers.
pub(crate) struct Manifest<'a> {
    pub text: &'a str,
    pub path: String,
    pub doc: Spanned<DeTable<'a>>,
}

/// One dependency a manifest declares.
#[derive(Debug, Clone)]
pub(crate) struct Declaration {
    /// The package's own name (Cargo's `package = "…"` of a renamed one).
    pub name: String,
    pub declared: Declared,
}

impl<'a> Manifest<'a> {
    pub(crate) fn parse(text: &'a str, path: &str) -> Result<Manifest<'a>, ParseFailure> {
        if too_deep(text) {
            return Err(ParseFailure("nested too deeply".into()));
        }
        Ok(Manifest { text, path: path.to_string(), doc: DeTable::parse(text)? })
    }

    /// The value at a dotted path of keys (`["workspace", "members"]`).
    pub(crate) fn at(&self, keys: &[&str]) -> Option<&Spanned<DeValue<'a>>> {
        let (first, rest) = keys.split_first()?;
        let mut value = field(self.doc.get_ref(), first)?;
        for key in rest {
            value = field(value.get_ref().as_table()?, key)?;
        }
        Some(value)
    }

    pub(crate) fn str_at(&self, keys: &[&str]) -> Option<&str> {
        self.at(keys).and_then(|v| v.get_ref().as_str())
    }

    /// The strings of the array at `keys`.
    pub(crate) fn strings_at(&self, keys: &[&str]) -> Vec<&str> {
        let Some(array) = self.at(keys).and_then(|v| v.get_ref().as_array()) else { return Vec::new() };
        array.iter().filter_map(|v| v.get_ref().as_str()).collect()
    }

    /// The lines of a key and its value.
    pub(crate) fn declared(
        &self,
        key: &Spanned<std::borrow::Cow<'a, str>>,
        value: &Spanned<DeValue<'a>>,
        section: &str,
        requirement: Option<String>,
    ) -> Declared {
        Declared {
            path: self.path.clone(),
            line: line_of(self.text, key.span().start),
            end_line: line_of(self.text, value.span().end.saturating_sub(1).max(key.span().start)),
            section: section.to_string(),
            requirement,
        }
    }

    /// Cargo's dependency tables: `[dependencies]`, `[dev-dependencies]`,
    /// `[build-dependencies]` and their `[target.'cfg'.…]` forms. A
    /// `workspace = true` entry takes its requirement from `workspace`.
    pub(crate) fn cargo_dependencies(&self, workspace: Option<&Manifest<'_>>) -> Vec<Declaration> {
        let mut out = Vec::new();
        let top = self.doc.get_ref();
        for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
            if let Some(table) = field(top, section).and_then(|v| v.get_ref().as_table()) {
                self.cargo_table(table, section, workspace, &mut out);
            }
        }
        if let Some(targets) = field(top, "target").and_then(|v| v.get_ref().as_table()) {
            for (cfg, t) in targets {
                let Some(t) = t.get_ref().as_table() else { continue };
                for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
                    if let Some(table) = field(t, section).and_then(|v| v.get_ref().as_table()) {
                        let named = format!("target.{}.{section}", cfg.get_ref());
                        self.cargo_table(table, &named, workspace, &mut out);
                    }
                }
            }
        }
        out
    }

    fn cargo_table(
        &self,
        table: &DeTable<'a>,
        section: &str,
        workspace: Option<&Manifest<'_>>,
        out: &mut Vec<Declaration>,
    ) {
        for (key, value) in table {
            let (name, requirement) = match value.get_ref() {
                DeValue::String(s) => (key.get_ref().to_string(), Some(s.to_string())),
                DeValue::Table(t) => {
                    let name = field(t, "package").and_then(|p| p.get_ref().as_str()).unwrap_or(key.get_ref());
                    let own = field(t, "version").and_then(|v| v.get_ref().as_str()).map(str::to_string);
                    let inherited = field(t, "workspace").and_then(|w| w.get_ref().as_bool()) == Some(true);
                    let requirement = match (own, inherited, workspace) {
                        (Some(r), _, _) => Some(r),
                        (None, true, Some(ws)) => ws.workspace_requirement(key.get_ref()),
                        _ => None,
                    };
                    (name.to_string(), requirement)
                }
                _ => continue,
            };
            out.push(Declaration { name, declared: self.declared(key, value, section, requirement) });
        }
    }

    /// The requirement `[workspace.dependencies]` gives `key`.
    fn workspace_requirement(&self, key: &str) -> Option<String> {
        let value = self.at(&["workspace", "dependencies", key])?;
        match value.get_ref() {
            DeValue::String(s) => Some(s.to_string()),
            DeValue::Table(t) => field(t, "version").and_then(|v| v.get_ref().as_str()).map(str::to_string),
            _ => None,
        }
    }
}

/// The entry `key` of a table.
pub(crate) fn field<'t, 'a>(table: &'t DeTable<'a>, key: &str) -> Option<&'t Spanned<DeValue<'a>>> {
    table.iter().find(|(k, _)| k.get_ref() == key).map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dependency_says_its_lines_and_real_name() {
        let text = "[package]\nname = \"a\"\n\n[dependencies]\nserde = \"1\"\nrx = { package = \"regex\", version = \"1.5\" }\n\n[dev-dependencies.tempfile]\nversion = \"3\"\n";
        let m = Manifest::parse(text, "a/Cargo.toml").unwrap();
        let d = m.cargo_dependencies(None);
        let got: Vec<(&str, bool, usize, usize, Option<&str>)> = d
            .iter()
            .map(|d| {
                (
                    d.name.as_str(),
                    d.declared.section.ends_with("dev-dependencies"),
                    d.declared.line,
                    d.declared.end_line,
                    d.declared.requirement.as_deref(),
                )
            })
            .collect();
        assert!(got.contains(&("serde", false, 5, 5, Some("1"))), "{got:?}");
        assert!(got.contains(&("regex", false, 6, 6, Some("1.5"))), "{got:?}");
        assert!(got.iter().any(|g| g.0 == "tempfile" && g.1 && g.4 == Some("3")), "{got:?}");
    }
}
