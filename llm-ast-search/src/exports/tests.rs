//! Each language's rule on real snippets: every symbol of the outline with
//! its `exported` (None where the rule says nothing: nested symbols).

use aide_core::Lang;

use super::{RustReach, offered};
use crate::source::SourceFile;

fn parse(lang: Lang, path: &str, text: &str) -> SourceFile {
    SourceFile::parse(path.to_string(), lang, text.as_bytes().to_vec()).expect("parses")
}

/// (name path, exported) of every symbol, in outline order.
fn marked(lang: Lang, path: &str, text: &str) -> Vec<(String, Option<bool>)> {
    parse(lang, path, text).outline().iter().map(|s| (s.name_path.to_string(), s.exported)).collect()
}

fn want(items: &[(&str, Option<bool>)]) -> Vec<(String, Option<bool>)> {
    items.iter().map(|(n, e)| (n.to_string(), *e)).collect()
}

const YES: Option<bool> = Some(true);
const NO: Option<bool> = Some(false);

#[test]
fn rust_any_pub_visibility_and_macro_export() {
    let text = "pub fn f() {}\npub(crate) fn g() {}\nfn h() {}\npub struct S {\n    pub x: u8,\n}\nimpl S {\n    pub fn m(&self) {}\n}\n#[macro_export]\n/// Doc.\nmacro_rules! shown { () => {} }\nmacro_rules! hidden { () => {} }\npub(super) const C: u8 = 1;\npub mod m {\n    pub fn inner() {}\n}\ncfg_rt! {\n    pub fn in_macro() {}\n    fn private_in_macro() {}\n}\n";
    assert_eq!(
        marked(Lang::Rust, "lib.rs", text),
        want(&[
            ("f", YES),
            ("g", YES),
            ("h", NO),
            ("S", YES),
            ("S/x", None),
            ("impl S", NO),
            ("impl S/m", None),
            ("shown", YES),
            ("hidden", NO),
            ("C", YES),
            ("m", YES),
            ("m/inner", None),
            ("in_macro", YES),
            ("private_in_macro", NO),
        ])
    );
    // llm-code's exports: `pub` alone, what other crates may use.
    let file = parse(Lang::Rust, "lib.rs", text);
    let for_crates: Vec<&str> =
        file.outline().iter().filter(|s| offered(&file, s, RustReach::OtherCrates)).map(|s| &*s.name).collect();
    assert_eq!(for_crates, ["f", "S", "shown", "m", "in_macro"]);
}

#[test]
fn python_public_names_or_all() {
    let text = "import os\n\ndef run():\n    def inner(): pass\n\nclass Agent:\n    LIMIT = 3\n    def name(self): pass\n\ndef _helper(): pass\n\nMAX = 1\n_HIDDEN = 2\n\ndef gone(): pass\ndel gone\n\nif TYPE_CHECKING:\n    def typed(): pass\n";
    assert_eq!(
        marked(Lang::Python, "m.py", text),
        want(&[
            ("run", YES),
            ("run/inner", None),
            ("Agent", YES),
            ("Agent/LIMIT", None),
            ("Agent/name", None),
            ("_helper", NO),
            ("MAX", YES),
            ("_HIDDEN", NO),
            ("gone", NO),
            ("typed", YES),
        ])
    );
    // `__all__` decides alone, a private name too.
    let text = "__all__ = ['run', '_helper']\n__all__ += ['MAX']\n\ndef run(): pass\ndef other(): pass\ndef _helper(): pass\nMAX = 1\n";
    assert_eq!(
        marked(Lang::Python, "m.py", text),
        want(&[("run", YES), ("other", NO), ("_helper", YES), ("MAX", YES)])
    );
}

#[test]
fn typescript_and_javascript_exports() {
    let text = "export function a() {}\nfunction b() {}\nexport class K {\n  m() {}\n}\nconst c = 1;\nexport const d = 2, e = 3;\nexport { b as bee };\nexport default class D {}\ninterface I {}\nexport type T = number;\nexport { x } from './x';\n";
    assert_eq!(
        marked(Lang::TypeScript, "m.ts", text),
        want(&[
            ("a", YES),
            ("b", YES),
            ("K", YES),
            ("K/m", None),
            ("c", NO),
            ("d", YES),
            ("e", YES),
            ("D", YES),
            ("I", NO),
            ("T", YES),
        ])
    );
    // CommonJS: `exports.x = function…` defines and offers `x`; `= helper` offers `helper`.
    let text =
        "function helper() {}\nfunction unused() {}\nexports.run = function () {};\nmodule.exports.help = helper;\n";
    assert_eq!(marked(Lang::JavaScript, "m.js", text), want(&[("helper", YES), ("unused", NO), ("run", YES)]));
    // `export default name` offers the name.
    let text = "function main() {}\nfunction other() {}\nexport default main;\n";
    assert_eq!(marked(Lang::JavaScript, "m.js", text), want(&[("main", YES), ("other", NO)]));
}

#[test]
fn go_capitalised_names_and_methods() {
    let text = "package p\n\nfunc Exported() {}\nfunc hidden() {}\n\ntype Client struct {\n\tName string\n}\n\nfunc (c *Client) Do() {}\nfunc (c *Client) do() {}\n\nvar V, w = 1, 2\n";
    assert_eq!(
        marked(Lang::Go, "p.go", text),
        want(&[
            ("Exported", YES),
            ("hidden", NO),
            ("Client", YES),
            ("Client/Name", None),
            ("(*Client)/Do", YES),
            ("(*Client)/do", NO),
            ("V", YES),
            ("w", NO),
        ])
    );
}

#[test]
fn java_public_top_level_types() {
    let text = "package p;\n\npublic class A {\n    public void m() {}\n}\n\nclass B {}\n\npublic interface C {}\n";
    assert_eq!(marked(Lang::Java, "A.java", text), want(&[("A", YES), ("A/m", None), ("B", NO), ("C", YES)]));
}

#[test]
fn c_and_cpp_without_internal_linkage() {
    let text =
        "int g = 1;\nstatic int s = 2;\nvoid f(void) {}\nstatic void h(void) {}\nstruct point {\n    int x;\n};\n";
    assert_eq!(
        marked(Lang::C, "a.c", text),
        want(&[("g", YES), ("s", NO), ("f", YES), ("h", NO), ("point", YES), ("point/x", None)])
    );
    let text = "namespace net {\nvoid connect();\nstatic void quiet();\nclass Client {\n    void send();\n};\n}\nconst int limit = 1;\nextern const int shared;\nint counter;\n";
    assert_eq!(
        marked(Lang::Cpp, "a.cpp", text),
        want(&[
            ("net", NO),
            ("net/connect", YES),
            ("net/quiet", NO),
            ("net/Client", YES),
            ("net/Client/send", None),
            ("limit", NO),
            ("shared", YES),
            ("counter", YES),
        ])
    );
}
