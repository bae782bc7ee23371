//! Language detection by file extension.

use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{AideError, LangError};

/// A language the tools know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Rust,
    Python,
    TypeScript,
    Tsx,
    JavaScript,
    C,
    Cpp,
    Java,
    Go,
}

impl Lang {
    pub const ALL: [Lang; 9] = [
        Lang::Rust,
        Lang::Python,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::JavaScript,
        Lang::C,
        Lang::Cpp,
        Lang::Java,
        Lang::Go,
    ];

    /// The canonical name, as accepted by `--type` and `--language`.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::JavaScript => "javascript",
            Lang::C => "c",
            Lang::Cpp => "cpp",
            Lang::Java => "java",
            Lang::Go => "go",
        }
    }

    /// The file extensions of this language.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Lang::Rust => &["rs"],
            Lang::Python => &["py", "pyi"],
            Lang::TypeScript => &["ts", "mts", "cts"],
            Lang::Tsx => &["tsx"],
            Lang::JavaScript => &["js", "mjs", "cjs", "jsx"],
            Lang::C => &["c", "h"],
            Lang::Cpp => &["cpp", "cc", "cxx", "hpp", "hh", "hxx"],
            Lang::Java => &["java"],
            Lang::Go => &["go"],
        }
    }

    pub fn from_extension(ext: &str) -> Option<Lang> {
        Lang::ALL.into_iter().find(|l| l.extensions().contains(&ext))
    }

    pub fn from_path(path: &Path) -> Option<Lang> {
        Lang::from_extension(path.extension()?.to_str()?)
    }

    /// Whether files with this path's extension may be of another language
    /// than the extension says: `.h` headers are C or C++.
    pub fn is_ambiguous(path: &Path) -> bool {
        path.extension().is_some_and(|e| e == "h")
    }

    /// The language of a file from its extension and, for a `.h` header,
    /// its content: C++ when it uses `::`, `class`, `namespace`, `template<`
    /// or access specifiers (none of which C has).
    pub fn from_path_and_content(path: &Path, content: &[u8]) -> Option<Lang> {
        let lang = Lang::from_path(path)?;
        if !Lang::is_ambiguous(path) {
            return Some(lang);
        }
        let head = &content[..content.len().min(256 * 1024)];
        let text = String::from_utf8_lossy(head);
        let cpp = text.contains("::")
            || text.lines().any(|l| {
                let l = l.trim_start();
                [
                    "class ",
                    "namespace ",
                    "template <",
                    "template<",
                    "public:",
                    "private:",
                    "protected:",
                    "using namespace",
                ]
                .iter()
                .any(|p| l.starts_with(p))
            });
        Some(if cpp { Lang::Cpp } else { Lang::C })
    }
}

impl FromStr for Lang {
    type Err = AideError;

    fn from_str(s: &str) -> Result<Lang, AideError> {
        let lower = s.to_ascii_lowercase();
        let lang = match lower.as_str() {
            "rust" | "rs" => Lang::Rust,
            "python" | "py" => Lang::Python,
            "typescript" | "ts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "javascript" | "js" | "jsx" => Lang::JavaScript,
            "c" => Lang::C,
            "cpp" | "c++" | "cxx" => Lang::Cpp,
            "java" => Lang::Java,
            "go" | "golang" => Lang::Go,
            _ => return Err(LangError { given: s.to_string() }.into()),
        };
        Ok(lang)
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code;

    #[test]
    fn detects_every_documented_extension() {
        let cases = [
            ("a.rs", Lang::Rust),
            ("a.py", Lang::Python),
            ("a.ts", Lang::TypeScript),
            ("a.tsx", Lang::Tsx),
            ("a.js", Lang::JavaScript),
            ("a.mjs", Lang::JavaScript),
            ("a.cjs", Lang::JavaScript),
            ("a.jsx", Lang::JavaScript),
            ("a.c", Lang::C),
            ("a.h", Lang::C),
            ("a.cpp", Lang::Cpp),
            ("a.cc", Lang::Cpp),
            ("a.cxx", Lang::Cpp),
            ("a.hpp", Lang::Cpp),
            ("a.hh", Lang::Cpp),
            ("a.hxx", Lang::Cpp),
            ("a.java", Lang::Java),
            ("a.go", Lang::Go),
        ];
        for (p, l) in cases {
            assert_eq!(Lang::from_path(Path::new(p)), Some(l), "{p}");
        }
        assert_eq!(Lang::from_path(Path::new("Makefile")), None);
    }

    #[test]
    fn headers_are_c_or_cpp_by_content() {
        let h = Path::new("a.h");
        assert_eq!(Lang::from_path_and_content(h, b"int f(void);\nstruct s { int x; };\n"), Some(Lang::C));
        assert_eq!(Lang::from_path_and_content(h, b"namespace ns {\nclass K {};\n}\n"), Some(Lang::Cpp));
        assert_eq!(Lang::from_path_and_content(h, b"std::string f();\n"), Some(Lang::Cpp));
        assert_eq!(Lang::from_path_and_content(Path::new("a.c"), b"std::x"), Some(Lang::C));
    }

    #[test]
    fn parses_names_and_aliases() {
        assert_eq!("RS".parse::<Lang>().unwrap(), Lang::Rust);
        assert_eq!("c++".parse::<Lang>().unwrap(), Lang::Cpp);
        assert_eq!("cobol".parse::<Lang>().unwrap_err().code, code::UNKNOWN_LANGUAGE);
        for l in Lang::ALL {
            assert_eq!(l.name().parse::<Lang>().unwrap(), l);
        }
    }
}
