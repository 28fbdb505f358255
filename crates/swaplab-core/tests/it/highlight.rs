//! Syntax highlighting: the kinds of tokens on the tutorial's own files, the promises every
//! token list keeps (sorted, disjoint, non-empty, in bounds, on char boundaries) on every
//! corpus and example file, on thousands of mutations of them and on inputs built to make
//! a scanner quadratic (their timing is the `highlight_growth` benchmark's).
use swaplab_core::highlight::{Language, Token, TokenKind, highlight};

use crate::support::{corpus_dir, examples_dir, read, walk};

#[path = "../../benches/support/pathological.rs"]
mod pathological;
use pathological::pathological;

const AGENT: &str = include_str!("../../../../content/examples/tutorial/after/agent.yml");
const RESPONSES: &str = include_str!(
    "../../../../content/examples/tutorial/after/skills/log_interaction/responses.yml"
);
const LOG_SKILL: &str =
    include_str!("../../../../content/examples/tutorial/after/skills/log_interaction/skill.md");
const IDENTIFY_SKILL: &str =
    include_str!("../../../../content/examples/tutorial/after/skills/identify_customer/skill.md");
const SERVER: &str =
    include_str!("../../../../content/examples/tutorial/server/scripts/mcp_crm_server.py");
const TICKETS_TOOL: &str =
    include_str!("../../../../content/examples/tutorial/before/skills/check_tickets/tools.py");

const ALL: [Language; 4] = [Language::Yaml, Language::Markdown, Language::Python, Language::Plain];

/// Each token with the text it covers.
fn pieces<'t>(text: &'t str, tokens: &[Token]) -> Vec<(&'t str, TokenKind)> {
    tokens.iter().map(|t| (&text[t.start..t.end], t.kind)).collect()
}

/// Highlights `text` and asserts that every `(piece, kind)` is one of its tokens, and that
/// no token covers any of `plain` (pieces that must stay uncoloured or be coloured another
/// way, given as `(piece, kind)` pairs that must *not* appear).
fn check(
    language: Language,
    text: &str,
    expected: &[(&str, TokenKind)],
    absent: &[(&str, TokenKind)],
) {
    let tokens = highlight(language, text);
    assert_promises(text, &tokens);
    let found = pieces(text, &tokens);
    for want in expected {
        assert!(found.contains(want), "{want:?} missing from {found:#?}");
    }
    for unwanted in absent {
        assert!(!found.contains(unwanted), "{unwanted:?} found in {found:#?}");
    }
}

/// What `highlight` promises about any token list.
fn assert_promises(text: &str, tokens: &[Token]) {
    let mut previous_end = 0;
    for token in tokens {
        assert!(token.start < token.end, "empty {token:?}");
        assert!(token.start >= previous_end, "unsorted or overlapping at {token:?}");
        assert!(token.end <= text.len(), "{token:?} past {}", text.len());
        assert!(
            text.is_char_boundary(token.start) && text.is_char_boundary(token.end),
            "{token:?}"
        );
        previous_end = token.end;
    }
}

#[test]
fn languages_come_from_the_extension() {
    for (path, language) in [
        ("after/agent.yml", Language::Yaml),
        ("crm/conversations/a.YAML", Language::Yaml),
        ("after/skills/x/skill.md", Language::Markdown),
        ("Contents of after/skills/x/skill.md", Language::Markdown),
        ("server/scripts/mcp_crm_server.py", Language::Python),
        ("notes.txt", Language::Plain),
        ("Makefile", Language::Plain),
        ("dir.yml/README", Language::Plain),
        ("", Language::Plain),
    ] {
        assert_eq!(Language::for_path(path), language, "{path}");
    }
}

#[test]
fn yaml_keys_values_and_block_scalars() {
    use TokenKind::*;
    check(
        Language::Yaml,
        AGENT,
        &[
            ("agent", Key),
            ("id", Key),
            (":", Punctuation),
            ("support-desk", String),
            ("|", Punctuation),
            ("You are the support desk of a software company. Keep answers short and", String),
            ("concrete, and only state facts that a tool returned.", String),
            ("orchestrator", Key),
            ("model_group", Key),
        ],
        &[("persona", String), ("orchestrator", String)],
    );
    check(
        Language::Yaml,
        RESPONSES,
        &[
            ("utter_confirm_note", Key),
            ("-", Punctuation),
            ("text", Key),
            ("'Shall I add this to your record? \"{note_summary}\"'", String),
            ("Understood, I have not saved anything.", String),
        ],
        &[],
    );
    let snippet = "# a comment\nenabled: true\ncount: 3\nrate: 1.5e+3\nnot_a_float: 1e3\n\
                   off: off\nnothing: ~\nflow: {a: 1, \"b\": [x, 'y z']}\nbase: &base\n  \
                   k: v\nother: *base\ntagged: !!str 12\nurl: http://x:8931/mcp # port\n\
                   key with spaces: value: not a key\n\"quoted key\": v\n";
    check(
        Language::Yaml,
        snippet,
        &[
            ("# a comment", Comment),
            ("true", Keyword),
            ("3", Number),
            ("1.5e+3", Number),
            ("1e3", String),
            ("off", Key),
            ("off", Keyword),
            ("~", Keyword),
            ("{", Punctuation),
            ("a", Key),
            ("1", Number),
            ("\"b\"", Key),
            ("[", Punctuation),
            ("x", String),
            ("'y z'", String),
            ("]}", Punctuation),
            ("&base", Anchor),
            ("*base", Anchor),
            ("!!str", Anchor),
            ("http://x:8931/mcp", String),
            ("# port", Comment),
            ("key with spaces", Key),
            ("\"quoted key\"", Key),
        ],
        &[],
    );
    // A block scalar ends at the first line indented no deeper than its key; a quoted
    // scalar may run over lines.
    check(
        Language::Yaml,
        "a:\n  b: >-\n    folded: text # not a comment\n\n    more\n  c: \"two\n    lines\" # c\n",
        &[
            ("b", Key),
            (">-", Punctuation),
            ("folded: text # not a comment", String),
            ("more", String),
            ("c", Key),
            ("\"two", String),
            ("lines\"", String),
            ("# c", Comment),
        ],
        &[("folded", Key)],
    );
}

#[test]
fn skill_markdown_has_yaml_frontmatter_directives_and_inline_code() {
    use TokenKind::*;
    check(
        Language::Markdown,
        LOG_SKILL,
        &[
            ("---", Punctuation),
            ("name", Key),
            ("log_interaction", String),
            ("import_tools", Key),
            ("mcp/hubspot_crm:add_timeline_note", String),
            ("requires_confirmation", Key),
            ("true", Keyword),
            ("`note_summary`", Code),
            ("`ok: true`", Code),
            ("@skill.identify_customer", Directive),
            (":::ordered_block", Directive),
            ("id", Key),
            ("=", Punctuation),
            ("save_note", String),
            ("steps", Key),
            ("execute_tool", Key),
            ("session.log_interaction.note_summary", String),
            (":::", Directive),
        ],
        // Prose is not YAML, and an underscore inside a word is no emphasis.
        &[("Write one or two sentences that say why the customer called and what was", String)],
    );
    let tokens = highlight(Language::Markdown, LOG_SKILL);
    let body = LOG_SKILL.find("Write one").unwrap();
    assert!(
        tokens.iter().filter(|t| t.start >= body).all(|t| t.kind != Emphasis),
        "{:#?}",
        pieces(LOG_SKILL, &tokens)
    );
    check(
        Language::Markdown,
        IDENTIFY_SKILL,
        &[
            ("description", Key),
            (">", Punctuation),
            ("Work out who the caller is from the email address on their account.", String),
            ("if:", Keyword),
            ("session.project.contact_id != None", Code),
        ],
        &[],
    );
    check(
        Language::Markdown,
        "# Title\n\nSome *emphasis*, **strong**, _under_ and snake_case_word, a \
         [link](https://example.com) and ``code with ` inside``.\nMail me@skill.com, see \
         @tool.load_profile and @memory.project.contact_id.\n\n- item\n1. first\n> quoted\n\n\
         ```python\nx = 1  # code\n```\nafter\n***\n",
        &[
            ("# Title", Heading),
            ("*emphasis*", Emphasis),
            ("**strong**", Emphasis),
            ("_under_", Emphasis),
            ("[link](https://example.com)", Link),
            ("``code with ` inside``", Code),
            ("@tool.load_profile", Directive),
            ("@memory.project.contact_id", Directive),
            ("-", Punctuation),
            ("1.", Punctuation),
            (">", Punctuation),
            ("```", Punctuation),
            ("python", Keyword),
            ("x = 1  # code", Code),
            ("***", Punctuation),
        ],
        &[("@skill.com", Directive), ("_case_", Emphasis)],
    );
    // Without a closing delimiter there is no frontmatter; `if:` inside a paragraph is prose.
    check(
        Language::Markdown,
        "---\nname: x\n\nText\nif: not a marker\n",
        &[("---", Punctuation)],
        &[("name", Key), ("if:", Keyword)],
    );
}

#[test]
fn python_keywords_strings_decorators_and_calls() {
    use TokenKind::*;
    check(
        Language::Python,
        SERVER,
        &[
            (
                "\"\"\"The CRM tools as an MCP server (streamable HTTP on 127.0.0.1:8931).\n\nAn MCP tool gets only the arguments in the call: there is no ToolContext and no\nproject memory here, so the customer id has to arrive as an argument.\n\"\"\"",
                String,
            ),
            ("from", Keyword),
            ("import", Keyword),
            ("FastMCP", Function),
            ("8931", Number),
            ("class", Keyword),
            ("CrmResult", Function),
            ("@mcp.tool", Decorator),
            ("async", Keyword),
            ("def", Keyword),
            ("find_contact_by_email", Function),
            ("str", Builtin),
            ("None", Keyword),
            ("f\"{contact['firstname']} {contact['lastname']}\"", String),
            (
                "# An argument, not a memory read: whoever fills in the call chooses the customer.",
                Comment,
            ),
            ("len", Builtin),
            ("search_contact_by_email", Function),
            ("->", Punctuation),
        ],
        // `crm.get_ticket` is a call, `.list` after a dot is no builtin.
        &[("mcp", Decorator)],
    );
    check(
        Language::Python,
        TICKETS_TOOL,
        &[
            ("@tool", Decorator),
            ("list_open_tickets", Function),
            ("\"project.contact_id\"", String),
            ("False", Keyword),
            ("await", Keyword),
        ],
        &[],
    );
    check(
        Language::Python,
        "x = rb'\\'' + 0x1F + 1_000.5e-3j + .5\ns = '''open\nstill\nt = 'unterminated\ny = a.list(self)\n",
        &[("rb'\\''", String), ("0x1F", Number), ("1_000.5e-3j", Number), (".5", Number)],
        &[("list", Builtin)],
    );
    // An unterminated triple-quoted string runs to the end.
    let text = "s = '''open\nstill\nt = 'x'\n";
    let tokens = highlight(Language::Python, text);
    assert_eq!(tokens.last().map(|t| (t.end, t.kind)), Some((text.len(), String)));
    check(Language::Python, "t = 'line\nu = 1\n", &[("'line", String), ("1", Number)], &[]);
}

#[test]
fn plain_text_has_no_tokens() {
    assert!(highlight(Language::Plain, AGENT).is_empty());
    for language in ALL {
        assert!(highlight(language, "").is_empty());
    }
}

/// Every seed file: the corpus and the examples, each read as every language.
fn seeds() -> Vec<String> {
    let files: Vec<String> = [corpus_dir(), examples_dir()]
        .iter()
        .flat_map(|dir| walk(dir))
        .filter(|path| {
            matches!(path.extension().and_then(|e| e.to_str()), Some("md" | "yml" | "yaml" | "py"))
        })
        .map(|path| read(&path))
        .collect();
    assert!(files.len() > 50, "seed files missing: {}", files.len());
    files
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        usize::try_from(self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % (n.max(1) as u64)).unwrap_or(0)
    }
}

#[test]
fn every_file_and_its_mutations_keep_the_promises() {
    const SPICE: [&str; 26] = [
        ":", "-", "[", "]", "{", "}", "&", "*", "!", "|", ">", "'", "\"", "#", "%", "@", "`", "\n",
        "\t", " ", ",", "\\", "_", "é", "😀", "\r\n",
    ];
    let mut rng = Rng(0x5eed_4a11);
    let mut runs = 0;
    for text in seeds() {
        let mut variants = vec![text.clone()];
        for _ in 0..4 {
            let cut = rng.below(text.len() + 1);
            variants.push(String::from_utf8_lossy(&text.as_bytes()[..cut]).into_owned());
        }
        for _ in 0..12 {
            let mut copy = text.as_bytes().to_vec();
            for _ in 0..=rng.below(6) {
                let at = rng.below(copy.len() + 1);
                match rng.below(3) {
                    0 if at < copy.len() => copy[at] ^= 1 << rng.below(8),
                    1 if at < copy.len() => {
                        copy.remove(at);
                    }
                    _ => {
                        let spice = SPICE[rng.below(SPICE.len())].as_bytes();
                        copy.splice(at..at, spice.iter().copied());
                    }
                }
            }
            variants.push(String::from_utf8_lossy(&copy).into_owned());
        }
        for variant in &variants {
            for language in ALL {
                assert_promises(variant, &highlight(language, variant));
                runs += 1;
            }
        }
    }
    assert!(runs > 3000, "{runs}");
}

#[test]
fn pathological_inputs_keep_the_promises() {
    // How their cost grows with their size is timed by the `highlight_growth` benchmark,
    // which `cargo xtask test` runs in its budget stage: a unit test does not time.
    for (name, text) in pathological(256 * 1024) {
        assert!(text.len() > 250 * 1024, "{name}: {} bytes", text.len());
        for language in ALL {
            assert_promises(&text, &highlight(language, &text));
        }
    }
}
