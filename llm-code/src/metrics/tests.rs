//! Hand-checked measures: each comment says what a line adds (cognitive
//! complexity as SonarSource's paper counts it, cyclomatic as radon or
//! rust-code-analysis does).

use aide_core::Lang;
use llm_ast_search::SourceFile;

use super::{FunctionMetrics, of_file};

fn functions(lang: Lang, path: &str, source: &str) -> Vec<FunctionMetrics> {
    let file = SourceFile::parse(path.to_string(), lang, source.as_bytes().to_vec()).expect("parses");
    of_file(&file).1
}

/// (cyclomatic, cognitive, parameters, nesting) of the function named `name`.
fn measures(all: &[FunctionMetrics], name: &str) -> (usize, usize, usize, usize) {
    let f = all.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no {name} in {all:?}"));
    (f.cyclomatic, f.cognitive, f.parameters, f.nesting)
}

#[test]
fn the_papers_sum_of_primes_and_get_words_in_java() {
    let src = r#"class A {
  int sumOfPrimes(int max) {
    int total = 0;
    OUT: for (int i = 1; i <= max; ++i) {   // +1
      for (int j = 2; j < i; ++j) {          // +2
        if (i % j == 0) {                    // +3
          continue OUT;                      // +1
        }
      }
      total += i;
    }
    return total;
  }
  String getWords(int number) {
    switch (number) {                        // +1
      case 1: return "one";
      case 2: return "a couple";
      case 3: return "a few";
      default: return "lots";
    }
  }
  String pick(boolean a, boolean b) {
    if (a) { return "a"; }                   // +1
    else if (b) { return "b"; }              // +1
    else { return a && b || !a ? "c" : "d"; } // +1 else, +2 runs, +2 ternary (nesting 1)
  }
}"#;
    let all = functions(Lang::Java, "A.java", src);
    assert_eq!(measures(&all, "sumOfPrimes"), (4, 7, 1, 3));
    assert_eq!(measures(&all, "getWords"), (4, 1, 1, 1));
    // cyclomatic: 1 + if + if + && + || + ?: = 6
    assert_eq!(measures(&all, "pick"), (6, 7, 2, 2));
}

#[test]
fn python_follows_radon_and_the_paper() {
    let src = r#"def f(a, b, c, *, d=1):
    if a and b or c:            # +1, +2 (two runs)
        for x in a:             # +2
            if x:               # +3
                pass
            elif b:             # +1
                pass
            else:               # +1
                pass
    def inner(y):               # measured on its own
        return y if y else 0
    return [y for y in a if y]

def g(self, x, /, *args, **kw):
    try:
        return x
    except ValueError:          # +1
        return lambda: 1 if x else 2   # +3: the lambda nests once more
    finally:
        pass
"#;
    let all = functions(Lang::Python, "m.py", src);
    // radon: 1 + if + and + or + for + if + elif + comprehension for + its if = 9
    assert_eq!(measures(&all, "f"), (9, 10, 4, 3));
    assert_eq!(measures(&all, "inner"), (2, 1, 1, 1));
    // radon: 1 + one except + the conditional expression = 3
    assert_eq!(measures(&all, "g"), (3, 4, 4, 3));
}

#[test]
fn rust_counts_arms_guards_question_marks_and_labels() {
    let src = r#"fn g(v: &[i32]) -> Result<i32, E> {
    let mut n = 0;
    for x in v {                                  // +1
        match x {                                 // +2
            1 => n += 1,
            _ if n > 2 => n -= 1,
            _ => {}
        }
    }
    let f = |y: i32| if y > 0 { 1 } else { 2 };   // +2 (in a closure), +1 else
    'outer: loop {                                // +1
        if n > 0 && n < 10 || n == 3 {            // +2, +2 runs
            break 'outer;                         // +1
        }
    }
    check(n)?;
    Ok(n + f(1))
}
impl S {
    fn m(&self, a: u8) -> bool { a > 0 }
}"#;
    let all = functions(Lang::Rust, "g.rs", src);
    // 1 + for + 3 arms + a guard + if + loop + if + && + || + ? = 12
    assert_eq!(measures(&all, "g"), (12, 12, 1, 2));
    assert_eq!(measures(&all, "m"), (1, 0, 2, 0));
}

#[test]
fn javascript_nests_what_a_callback_holds() {
    let src = r#"function h(a, b) {
  try {
    if (a) { return 1; }                          // +1
  } catch (e) {                                   // +1
    a.forEach(x => { while (x) { x--; } });       // +3
  }
  return a ? b : a ?? b;                          // +1
}
const k = (x) => x && y;                          // +1
"#;
    for lang in [Lang::JavaScript, Lang::TypeScript] {
        let all = functions(lang, "h.js", src);
        assert_eq!(measures(&all, "h"), (5, 6, 2, 3), "{lang}");
        assert_eq!(measures(&all, "k"), (2, 1, 1, 0), "{lang}");
    }
}

#[test]
fn go_counts_cases_not_default_and_each_name_of_a_parameter() {
    let src = r#"package p

func k(a, b int, s ...string) int {
	switch {                  // +1
	case a > b:
		return 1
	case a < b && b > 0:      // +1 run
		return 2
	default:
	}
	if a > 0 {                // +1
		return 3
	} else if b > 0 {         // +1
		return 4
	} else {                  // +1
		return 5
	}
}
"#;
    let all = functions(Lang::Go, "k.go", src);
    // 1 + two cases + && + if + else if = 6
    assert_eq!(measures(&all, "k"), (6, 5, 3, 1));
}

#[test]
fn c_counts_goto_and_void_declares_no_parameter() {
    let src = r#"int c(int n, char **v) {
    int r = 0;
    while (n--) {                  /* +1 */
        r += n > 2 ? 1 : 0;        /* +2 */
        if (!v) goto done;         /* +2, +1 goto */
    }
    do { r++; } while (r < 3);     /* +1 */
done:
    return r;
}
int z(void) { return 0; }
"#;
    for lang in [Lang::C, Lang::Cpp] {
        let all = functions(lang, "c.c", src);
        assert_eq!(measures(&all, "c"), (5, 7, 2, 2), "{lang}");
        assert_eq!(measures(&all, "z"), (1, 0, 0, 0), "{lang}");
    }
}

#[test]
fn lines_and_code_lines_leave_out_blanks_and_comments() {
    let src = "def f():\n    # a comment\n\n    x = 1\n    return x\n";
    let all = functions(Lang::Python, "f.py", src);
    assert_eq!((all[0].lines, all[0].code_lines), (5, 3));
    let file = SourceFile::parse("f.py".into(), Lang::Python, src.as_bytes().to_vec()).expect("parses");
    let (totals, _) = of_file(&file);
    assert_eq!((totals.lines, totals.code_lines, totals.functions), (5, 3, 1));
    // The function's 1; the module's own 1 apart.
    assert_eq!((totals.cyclomatic, totals.module_cyclomatic), (1, 1));
}

/// A file's `cyclomatic` and `cognitive` are its functions' summed, as
/// radon totals blocks; the module-level code is measured apart.
#[test]
fn file_totals_sum_the_functions_and_measure_the_module_apart() {
    let src = "import sys
if sys.argv and sys.platform:
    MODE = 1
else:
    MODE = 2

def f(a):
    if a:
        return 1
    return 2

class K:
    def m(self, b):
        for x in b:
            if x:
                return x
";
    let file = SourceFile::parse("m.py".into(), Lang::Python, src.as_bytes().to_vec()).expect("parses");
    let (totals, functions) = of_file(&file);
    assert_eq!(totals.functions, 2);
    assert_eq!(totals.cyclomatic, functions.iter().map(|f| f.cyclomatic).sum::<usize>());
    assert_eq!(totals.cognitive, functions.iter().map(|f| f.cognitive).sum::<usize>());
    assert_eq!(totals.cyclomatic, 2 + 3);
    // 1 + the module's `if` and its `and`.
    assert_eq!(totals.module_cyclomatic, 3);
    assert!(totals.module_cognitive >= 2, "{totals:?}");
}
