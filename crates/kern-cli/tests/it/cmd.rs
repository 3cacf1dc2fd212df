//! The command's output text, as case files run by `trycmd`: every `.toml` case under `tests/cmd/`
//! (the exit code, standard output and error, and with `fs.sandbox` the files of `NAME.in/` checked
//! against `NAME.out/` afterwards). `tests/cmd/README.md` says how to add a case and how to regenerate
//! the expectations.

#[test]
fn case_files() {
    trycmd::TestCases::new()
        .register_bin("kern", std::path::Path::new(env!("CARGO_BIN_EXE_kern")))
        .case("tests/cmd/**/*.toml");
}
