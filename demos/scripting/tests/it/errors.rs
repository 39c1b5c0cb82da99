//! Every script error is a message with the script's line, never a panic: syntax, load-time
//! declarations, and runtime errors inside a system (runtime error, unknown field, wrong type,
//! out of range, read-only field, runaway loop).

use arena::scene::Scene;
use arena::sim::Sim;
use mosaic::ExecutorKind;
use mosaic_scripting::{Script, ScriptError};

/// Loads `source` into a small arena and runs two frames; the error, if any.
fn error_of(source: &str) -> ScriptError {
    let scene = Scene::bundled().scaled(300);
    let mut sim = Sim::new(&scene, 1, ExecutorKind::SingleThreaded);
    let mut script = match Script::load("t.rhai", source, sim.parts_mut().0) {
        Ok(script) => script,
        Err(error) => return error,
    };
    for _ in 0..2 {
        sim.step();
        if let Err(error) = script.run(sim.parts_mut().0) {
            return error;
        }
    }
    panic!("the script ran without an error");
}

/// `source`'s error is at `line` and its message has `words`.
fn check(source: &str, line: usize, words: &str) {
    let error = error_of(source);
    let message = error.to_string();
    assert_eq!(error.line(), Some(line), "{message}");
    assert!(message.contains(&format!("line {line}")), "{message}");
    assert!(message.contains(words), "`{words}` not in: {message}");
    assert!(message.contains("t.rhai"), "{message}");
}

#[test]
fn syntax_errors_give_the_line() {
    check("system(\"a\", [\"Health\"]);\nfn a() {\n  let x = ;\n}\n", 3, "syntax error");
}

#[test]
fn declaration_errors_give_the_line() {
    check("\n\ncomponent(\"Shield\", #{ absorb: \"f65\" });\n", 3, "unknown type \"f65\"");
    check("component(\"S\", #{ \"a b\": \"f32\" });\n", 1, "field `a b`");
    check("component(\"S\", #{ a: 1 });\n", 1, "the type is a string");
    check("\nsystem(\"a\", [\"Helth\"]);\nfn a() {}\n", 2, "no component `Helth`");
    check("system(\"a\", [\"Health\"]);\n", 1, "no `fn a()`");
    check(
        "component(\"S\", #{ health: \"i32\" });\nsystem(\"a\", [\"S\", \"Health\"]);\nfn a() {}\n",
        2,
        "two fields named `health`",
    );
    check("let x = 1;\nx.frobnicate();\n", 2, "frobnicate");
    check(
        "component(\"S\", #{ a: \"f32\" });\nsystem(\"a\", [\"!S\"]);\nfn a() {}\n",
        2,
        "lists no component",
    );
    check("component(\"S\", #{});\ncomponent(\"S\", #{});\n", 2, "declared twice (first at line 1)");
    check("component(\"Health\", #{ hp: \"i32\" });\n", 1, "bridged component");
}

#[test]
fn runtime_errors_give_the_line_and_the_entity() {
    let system = "component(\"S\", #{ a: \"f32\", c: \"u8\" });\nsystem(\"arm\", [\"Health\", \"Team\", \"!S\"]);\nsystem(\"s\", [\"S\"]);\nfn arm() { this.add(\"S\", #{ a: 1.0 }); }\n";
    let cases: [(&str, usize, &str); 7] = [
        ("fn s() {\n  let x = 1 / 0;\n}\n", 6, "Division by zero"),
        ("fn s() {\n  this.b = 1.0;\n}\n", 6, "no field `b`"),
        ("fn s() {\n  this.a = \"many\";\n}\n", 6, "field `a` is f32, not string"),
        ("fn s() {\n  this.c = 300;\n}\n", 6, "out of its range"),
        ("fn s() {\n  this.add(\"T\", #{});\n}\n", 6, "no component `T`"),
        ("fn s() {\n  this.add(\"S\", #{ z: 1 });\n}\n", 6, "has no field `z`"),
        ("fn s() {\n  while true {}\n}\n", 5, "Too many operations"),
    ];
    for (body, line, words) in cases {
        let source = format!("{system}{body}");
        check(&source, line, words);
        assert!(error_of(&source).to_string().contains("system `s` on entity "), "{source}");
    }
    check("system(\"a\", [\"Health\", \"Team\"]);\nfn a() {\n  this.team = 3;\n}\n", 3, "read-only");
    check("system(\"a\", [\"Health\"]);\nfn a() {\n  this.health = 1.5;\n}\n", 3, "field `health` is i32");
}

#[test]
fn declarations_after_load_are_refused() {
    check(
        "system(\"a\", [\"Health\"]);\nfn a() {\n  component(\"Late\", #{ x: \"f32\" });\n}\n",
        3,
        "top level only",
    );
}
