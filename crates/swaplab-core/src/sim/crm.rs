//! The mock CRM: contacts, tickets and notes, shaped like the HubSpot CRM v3 calls the
//! tutorial's `hubspot_client` makes, with every request written to a log.
//!
//! The seed comes from the workspace's `crm.yml` ([`read_seed`]); without one the
//! tutorial's facts are used ([`CrmSeed::tutorial`]). Every operation records a
//! [`CrmRequest`] naming the records it read or wrote and the customer (contact) each
//! belongs to — that owner is what the attack compares with the caller.
//!
//! The client functions and their HTTP shapes (the wording of the `crm_*` failures is
//! ours; HubSpot's own error bodies are not modelled):
//!
//! | function | request |
//! | --- | --- |
//! | `search_contact_by_email(email)` | `POST /crm/v3/objects/contacts/search` |
//! | `get_contact(contact_id)` | `GET /crm/v3/objects/contacts/<id>?properties=…` |
//! | `list_ticket_ids(contact_id)` | `GET /crm/v3/objects/contacts/<id>/associations/tickets` |
//! | `get_ticket(ticket_id)` | `GET /crm/v3/objects/tickets/<id>?properties=…` |
//! | `create_note(contact_id, body)` | `POST /crm/v3/objects/notes` (associated to the contact) |

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::Serialize;

use super::json::{self, JsonValue, object, string};
use crate::diagnostic::{Diagnostic, Phase, Position, Span};
use crate::rasa::project::MAX_FILE_BYTES;
use crate::yaml::{self, Node, YamlValue};

/// Most records (contacts, tickets, notes) `crm.yml` may hold. (The 1 MiB file cap and
/// YAML's node cap come first for wordy seeds; seeds built in code are not capped.)
pub const MAX_CRM_RECORDS: usize = 10_000;
/// Most notes a run may create.
pub const MAX_NOTES: usize = 10_000;
/// The note id the tutorial's mock starts from.
pub const FIRST_NOTE_ID: u64 = 10_000;

const CODE: &str = "swaplab.crm.seed";
const CODE_CAP: &str = "swaplab.crm.limit";

/// A customer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Contact {
    /// HubSpot's id, a string of digits (`701`).
    pub id: String,
    /// First name.
    pub firstname: String,
    /// Last name.
    pub lastname: String,
    /// Company.
    pub company: String,
    /// The email the caller gives.
    pub email: String,
    /// Where the seed declares it.
    #[serde(skip)]
    pub span: Span,
}

impl Contact {
    /// `Firstname Lastname`.
    pub fn full_name(&self) -> String {
        format!("{} {}", self.firstname, self.lastname).trim().to_owned()
    }
}

/// A support ticket on one contact.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Ticket {
    /// Ticket id (`9001`).
    pub id: String,
    /// The contact it is associated with.
    pub contact: String,
    /// Subject line.
    pub subject: String,
    /// Pipeline stage (`waiting_on_us`).
    pub stage: String,
    /// Creation date (`2026-08-11`).
    pub created: String,
    /// Where the seed declares it.
    #[serde(skip)]
    pub span: Span,
}

/// A note on a contact's timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Note {
    /// Note id (`10000`).
    pub id: String,
    /// The contact it is associated with.
    pub contact: String,
    /// `hs_note_body`.
    pub body: String,
    /// Whether the seed held it (false: created during the run).
    pub seeded: bool,
}

/// The CRM's starting data.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CrmSeed {
    /// The seed file's path, when there is one.
    pub file: Option<String>,
    /// Contacts, in seed order.
    pub contacts: Vec<Contact>,
    /// Tickets, in seed order.
    pub tickets: Vec<Ticket>,
    /// Notes already on the timelines.
    pub notes: Vec<Note>,
    /// The id the next created note gets.
    pub next_note_id: u64,
    /// Problems in the seed file.
    pub diagnostics: Vec<Diagnostic>,
    /// The environment the project's processes start with, and its own mock CRM if it
    /// ships one (then the mock, not this data, answers its HTTP client).
    #[serde(skip)]
    pub network: super::network::Network,
}

impl CrmSeed {
    /// The tutorial's facts: Dana Okafor (701) with tickets 9001 and 9002, Sam Rivera (702)
    /// with none, note ids from 10000.
    pub fn tutorial() -> CrmSeed {
        let contact = |id: &str, first: &str, last: &str, company: &str, email: &str| Contact {
            id: id.into(),
            firstname: first.into(),
            lastname: last.into(),
            company: company.into(),
            email: email.into(),
            span: Span::point(Position::START),
        };
        let ticket = |id: &str, subject: &str, stage: &str, created: &str| Ticket {
            id: id.into(),
            contact: "701".into(),
            subject: subject.into(),
            stage: stage.into(),
            created: created.into(),
            span: Span::point(Position::START),
        };
        CrmSeed {
            file: None,
            contacts: vec![
                contact("701", "Dana", "Okafor", "Okafor Logistics", "dana.okafor@example.com"),
                contact("702", "Sam", "Rivera", "Rivera Foods", "sam.rivera@example.com"),
            ],
            tickets: vec![
                ticket(
                    "9001",
                    "Invoice 4471 shows the wrong VAT rate",
                    "waiting_on_us",
                    "2026-08-11",
                ),
                ticket(
                    "9002",
                    "Add a second admin to the account",
                    "waiting_on_contact",
                    "2026-08-19",
                ),
            ],
            notes: Vec::new(),
            next_note_id: FIRST_NOTE_ID,
            diagnostics: Vec::new(),
            network: super::network::Network::default(),
        }
    }

    /// The contact with this id.
    pub fn contact(&self, id: &str) -> Option<&Contact> {
        self.contacts.iter().find(|c| c.id == id)
    }

    /// How many records (tickets and notes) belong to a contact.
    pub fn records_of(&self, id: &str) -> usize {
        self.tickets.iter().filter(|t| t.contact == id).count()
            + self.notes.iter().filter(|n| n.contact == id).count()
    }
}

/// Reads a `crm.yml`: `contacts:` (id, firstname, lastname, company, email), `tickets:`
/// (id, contact, subject, stage, created), optional `notes:` (id, contact, body) and
/// `next_note_id:`. Ids may be written as numbers; they are kept as strings, as HubSpot
/// returns them. Never fails: problems become diagnostics and the bad entry is skipped.
pub fn read_seed(file: &str, text: &str) -> CrmSeed {
    let mut seed = CrmSeed {
        file: Some(file.to_owned()),
        contacts: Vec::new(),
        tickets: Vec::new(),
        notes: Vec::new(),
        next_note_id: FIRST_NOTE_ID,
        diagnostics: Vec::new(),
        network: super::network::Network::default(),
    };
    let mut reader = SeedReader { file, diagnostics: Vec::new() };
    if text.len() > MAX_FILE_BYTES {
        reader.error(
            Span::point(Position::START),
            format!(
                "crm.yml is {} bytes; files above {MAX_FILE_BYTES} bytes are not read",
                text.len()
            ),
        );
        seed.diagnostics = reader.diagnostics;
        return seed;
    }
    let root = match yaml::parse(text, Position::START) {
        Ok(root) => root,
        Err(error) => {
            reader.error(
                Span::point(error.at),
                format!("crm.yml is not valid YAML: {}", error.message),
            );
            seed.diagnostics = reader.diagnostics;
            return seed;
        }
    };
    let Some(root) = root else {
        seed.diagnostics = reader.diagnostics;
        return seed;
    };
    let YamlValue::Map(entries) = &root.value else {
        reader.error(root.span, "crm.yml must be a mapping with contacts: and tickets:".into());
        seed.diagnostics = reader.diagnostics;
        return seed;
    };
    let mut records = 0usize;
    // Ids and emails already read, so that duplicates are found without rescanning the
    // seed for every entry (which is quadratic in the records).
    let mut contact_ids: BTreeSet<String> = BTreeSet::new();
    let mut emails: BTreeSet<String> = BTreeSet::new();
    let mut ticket_ids: BTreeSet<String> = BTreeSet::new();
    for (key, value) in entries {
        match key_text(key).as_deref() {
            Some("contacts") => {
                for item in reader.list(value, "contacts") {
                    if !reader.room(&mut records, item) {
                        break;
                    }
                    let Some(f) = reader.fields(item, &["id", "firstname", "lastname", "company", "email"], &["id", "email"]) else { continue };
                    let contact = Contact {
                        id: f[0].clone(),
                        firstname: f[1].clone(),
                        lastname: f[2].clone(),
                        company: f[3].clone(),
                        email: f[4].clone(),
                        span: item.span,
                    };
                    if contact_ids.contains(&contact.id) {
                        reader.error(item.span, format!("contact id '{}' is used twice", contact.id));
                    } else if !emails.insert(contact.email.to_ascii_lowercase()) {
                        reader.error(item.span, format!("email '{}' belongs to two contacts", contact.email));
                    } else {
                        contact_ids.insert(contact.id.clone());
                        seed.contacts.push(contact);
                    }
                }
            }
            Some("tickets") => {
                for item in reader.list(value, "tickets") {
                    if !reader.room(&mut records, item) {
                        break;
                    }
                    let Some(f) = reader.fields(item, &["id", "contact", "subject", "stage", "created"], &["id", "contact"]) else { continue };
                    if !ticket_ids.insert(f[0].clone()) {
                        reader.error(item.span, format!("ticket id '{}' is used twice", f[0]));
                        continue;
                    }
                    seed.tickets.push(Ticket {
                        id: f[0].clone(),
                        contact: f[1].clone(),
                        subject: f[2].clone(),
                        stage: f[3].clone(),
                        created: f[4].clone(),
                        span: item.span,
                    });
                }
            }
            Some("notes") => {
                for item in reader.list(value, "notes") {
                    if !reader.room(&mut records, item) {
                        break;
                    }
                    let Some(f) = reader.fields(item, &["id", "contact", "body"], &["id", "contact"]) else { continue };
                    seed.notes.push(Note { id: f[0].clone(), contact: f[1].clone(), body: f[2].clone(), seeded: true });
                }
            }
            Some("next_note_id") => match &value.value {
                YamlValue::Int(n) if *n >= 0 => seed.next_note_id = n.unsigned_abs(),
                YamlValue::Str(s) if s.parse::<u64>().is_ok() => seed.next_note_id = s.parse().unwrap_or(FIRST_NOTE_ID),
                _ => reader.error(value.span, "next_note_id must be a whole number".into()),
            },
            Some(other) => reader.warn(key.span, format!("unknown key '{other}' is ignored (expected contacts, tickets, notes, next_note_id)")),
            None => reader.error(key.span, "keys of crm.yml must be strings".into()),
        }
    }
    for ticket in &seed.tickets {
        if !contact_ids.contains(&ticket.contact) {
            reader.warn(
                ticket.span,
                format!(
                    "ticket '{}' belongs to contact '{}', which is not in contacts",
                    ticket.id, ticket.contact
                ),
            );
        }
    }
    seed.diagnostics = reader.diagnostics;
    seed
}

fn key_text(node: &Node) -> Option<String> {
    match &node.value {
        YamlValue::Str(s) => Some(s.clone()),
        _ => None,
    }
}

struct SeedReader<'f> {
    file: &'f str,
    diagnostics: Vec<Diagnostic>,
}

impl SeedReader<'_> {
    fn error(&mut self, span: Span, message: String) {
        self.diagnostics.push(Diagnostic::error(self.file, span, Phase::Read, CODE, message));
    }

    fn warn(&mut self, span: Span, message: String) {
        self.diagnostics.push(Diagnostic::warning(self.file, span, Phase::Read, CODE, message));
    }

    fn room(&mut self, records: &mut usize, item: &Node) -> bool {
        *records += 1;
        if *records > MAX_CRM_RECORDS {
            self.diagnostics.push(Diagnostic::error(
                self.file,
                item.span,
                Phase::Read,
                CODE_CAP,
                format!(
                    "crm.yml holds more than {MAX_CRM_RECORDS} records; the rest are not loaded"
                ),
            ));
            return false;
        }
        true
    }

    fn list<'n>(&mut self, node: &'n Node, what: &str) -> &'n [Node] {
        match &node.value {
            YamlValue::Seq(items) => items,
            YamlValue::Null => &[],
            _ => {
                self.error(node.span, format!("{what}: must be a list"));
                &[]
            }
        }
    }

    /// The named fields of a mapping as strings (absent → empty); `None` when the item is
    /// not a mapping or a required field is missing.
    fn fields(&mut self, item: &Node, names: &[&str], required: &[&str]) -> Option<Vec<String>> {
        let YamlValue::Map(entries) = &item.value else {
            self.error(
                item.span,
                format!("each entry must be a mapping with {}", names.join(", ")),
            );
            return None;
        };
        let mut out = vec![String::new(); names.len()];
        let mut seen = vec![false; names.len()];
        for (key, value) in entries {
            let Some(name) = key_text(key) else { continue };
            let Some(i) = names.iter().position(|n| *n == name) else {
                self.warn(
                    key.span,
                    format!("unknown field '{name}' is ignored (expected {})", names.join(", ")),
                );
                continue;
            };
            let text = match &value.value {
                YamlValue::Str(s) | YamlValue::Timestamp(s) => s.clone(),
                YamlValue::Int(n) => n.to_string(),
                YamlValue::Null => String::new(),
                _ => {
                    self.error(value.span, format!("'{name}' must be a string or a number"));
                    return None;
                }
            };
            out[i] = text;
            seen[i] = true;
        }
        for name in required {
            let i = names.iter().position(|n| n == name).unwrap_or(0);
            if !seen[i] || out[i].is_empty() {
                self.error(item.span, format!("this entry has no '{name}'"));
                return None;
            }
        }
        Some(out)
    }
}

/// What a request did to a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Returned it.
    Read,
    /// Created or changed it.
    Write,
}

/// The kind of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordKind {
    /// A contact.
    Contact,
    /// A contact's list of ticket associations.
    Associations,
    /// A ticket.
    Ticket,
    /// A note.
    Note,
}

/// One record a request touched, and whose it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Touched {
    /// Contact, associations, ticket or note.
    pub kind: RecordKind,
    /// The record's id.
    pub id: String,
    /// The contact it belongs to.
    pub owner: String,
    /// Read or written.
    pub access: Access,
    /// A ticket's subject as the CRM's answer gave it, when a project's own mock
    /// answered (the seed's tickets are looked up in the seed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
}

/// One HTTP request the client made, as the log shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CrmRequest {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// Path and query (`/crm/v3/objects/contacts/701/associations/tickets`).
    pub path: String,
    /// The JSON body, for a POST.
    pub body: Option<JsonValue>,
    /// The HTTP status the mock answered with.
    pub status: u16,
    /// The records it touched.
    pub touched: Vec<Touched>,
}

impl CrmRequest {
    /// `GET /crm/v3/…` — the line the log prints.
    pub fn line(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

/// A failed CRM call, as the client raises it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrmError {
    /// The exception's class name in the tool's code.
    pub exc_type: &'static str,
    /// `str(exc)`.
    pub message: String,
}

/// The CRM during a run.
#[derive(Clone, Debug)]
pub struct Crm {
    /// The data, changed as notes are created. Shared until the first note: the attack
    /// starts every skill's probes from one copy of the run, and a 100,000-record seed
    /// should not be copied once per skill.
    pub data: Arc<CrmSeed>,
    /// Every request made, in order.
    pub log: Vec<CrmRequest>,
    /// The project's own mock CRM, answering its HTTP client.
    pub(crate) mock: Option<super::network::MockCrm>,
    /// Which contact's associations listed each ticket, as the run went.
    pub(crate) ticket_owners: Vec<(String, String)>,
}

const CONTACT_PROPERTIES: &str = "firstname,lastname,company,email";
const TICKET_PROPERTIES: &str = "subject,hs_pipeline_stage,createdate";

impl Crm {
    /// A CRM holding the seed's data and an empty log.
    pub fn new(seed: CrmSeed) -> Crm {
        let mock = seed
            .network
            .mock
            .clone()
            .map(|spec| super::network::MockCrm::new(spec, seed.network.env_pairs()));
        Crm { data: Arc::new(seed), log: Vec::new(), mock, ticket_owners: Vec::new() }
    }

    fn contact_json(contact: &Contact) -> JsonValue {
        object([
            ("id", string(&contact.id)),
            ("firstname", string(&contact.firstname)),
            ("lastname", string(&contact.lastname)),
            ("company", string(&contact.company)),
            ("email", string(&contact.email)),
        ])
    }

    fn record(
        &mut self,
        method: &'static str,
        path: String,
        body: Option<JsonValue>,
        status: u16,
        touched: Vec<Touched>,
    ) {
        self.log.push(CrmRequest { method, path, body, status, touched });
    }

    fn not_found(
        &mut self,
        method: &'static str,
        path: String,
        body: Option<JsonValue>,
        what: &str,
    ) -> CrmError {
        let message = format!("crm_not_found: {what} ({method} {path} answered 404)");
        self.record(method, path, body, 404, Vec::new());
        CrmError { exc_type: "CrmError", message }
    }

    /// The contact whose email matches (case-insensitively, as HubSpot's `EQ` filter does).
    pub fn search_contact_by_email(&mut self, email: &str) -> Option<JsonValue> {
        let body = object([
            (
                "filterGroups",
                JsonValue::Array(vec![object([(
                    "filters",
                    JsonValue::Array(vec![object([
                        ("propertyName", string("email")),
                        ("operator", string("EQ")),
                        ("value", string(email)),
                    ])]),
                )])]),
            ),
            ("properties", JsonValue::Array(CONTACT_PROPERTIES.split(',').map(string).collect())),
        ]);
        let found =
            self.data.contacts.iter().find(|c| c.email.eq_ignore_ascii_case(email.trim())).cloned();
        let touched = found
            .iter()
            .map(|c| Touched {
                kind: RecordKind::Contact,
                id: c.id.clone(),
                owner: c.id.clone(),
                access: Access::Read,
                subject: None,
            })
            .collect();
        self.record("POST", "/crm/v3/objects/contacts/search".into(), Some(body), 200, touched);
        found.as_ref().map(Crm::contact_json)
    }

    /// One contact.
    pub fn get_contact(&mut self, contact_id: &str) -> Result<JsonValue, CrmError> {
        let path = format!("/crm/v3/objects/contacts/{contact_id}?properties={CONTACT_PROPERTIES}");
        let Some(contact) = self.data.contact(contact_id).cloned() else {
            return Err(self.not_found("GET", path, None, &format!("no contact {contact_id}")));
        };
        let touched = vec![Touched {
            kind: RecordKind::Contact,
            id: contact.id.clone(),
            owner: contact.id.clone(),
            access: Access::Read,
            subject: None,
        }];
        self.record("GET", path, None, 200, touched);
        Ok(Crm::contact_json(&contact))
    }

    /// The ids of a contact's tickets, in seed order.
    pub fn list_ticket_ids(&mut self, contact_id: &str) -> Result<Vec<String>, CrmError> {
        let path = format!("/crm/v3/objects/contacts/{contact_id}/associations/tickets");
        if self.data.contact(contact_id).is_none() {
            return Err(self.not_found("GET", path, None, &format!("no contact {contact_id}")));
        }
        let ids: Vec<String> = self
            .data
            .tickets
            .iter()
            .filter(|t| t.contact == contact_id)
            .map(|t| t.id.clone())
            .collect();
        let touched = vec![Touched {
            kind: RecordKind::Associations,
            id: contact_id.to_owned(),
            owner: contact_id.to_owned(),
            access: Access::Read,
            subject: None,
        }];
        self.record("GET", path, None, 200, touched);
        Ok(ids)
    }

    /// One ticket: id, subject, stage, created.
    pub fn get_ticket(&mut self, ticket_id: &str) -> Result<JsonValue, CrmError> {
        let path = format!("/crm/v3/objects/tickets/{ticket_id}?properties={TICKET_PROPERTIES}");
        let Some(ticket) = self.data.tickets.iter().find(|t| t.id == ticket_id).cloned() else {
            return Err(self.not_found("GET", path, None, &format!("no ticket {ticket_id}")));
        };
        let touched = vec![Touched {
            kind: RecordKind::Ticket,
            id: ticket.id.clone(),
            owner: ticket.contact.clone(),
            access: Access::Read,
            subject: None,
        }];
        self.record("GET", path, None, 200, touched);
        Ok(object([
            ("id", string(&ticket.id)),
            ("subject", string(&ticket.subject)),
            ("stage", string(&ticket.stage)),
            ("created", string(&ticket.created)),
        ]))
    }

    /// Creates a note on a contact's timeline and returns its id.
    pub fn create_note(&mut self, contact_id: &str, body: &str) -> Result<String, CrmError> {
        let payload = object([
            ("properties", object([("hs_note_body", string(body))])),
            (
                "associations",
                JsonValue::Array(vec![object([
                    ("to", object([("id", string(contact_id))])),
                    (
                        "types",
                        JsonValue::Array(vec![object([
                            ("associationCategory", string("HUBSPOT_DEFINED")),
                            ("associationTypeId", JsonValue::Int(202)),
                        ])]),
                    ),
                ])]),
            ),
        ]);
        let path = "/crm/v3/objects/notes".to_owned();
        if self.data.contact(contact_id).is_none() {
            return Err(self.not_found(
                "POST",
                path,
                Some(payload),
                &format!("no contact {contact_id} to associate the note with"),
            ));
        }
        if self.data.notes.iter().filter(|n| !n.seeded).count() >= MAX_NOTES {
            self.record("POST", path, Some(payload), 429, Vec::new());
            return Err(CrmError {
                exc_type: "CrmError",
                message: format!("crm_limit: at most {MAX_NOTES} notes per run"),
            });
        }
        let data = Arc::make_mut(&mut self.data);
        let id = data.next_note_id.to_string();
        data.next_note_id = data.next_note_id.saturating_add(1);
        data.notes.push(Note {
            id: id.clone(),
            contact: contact_id.to_owned(),
            body: body.to_owned(),
            seeded: false,
        });
        let touched = vec![Touched {
            kind: RecordKind::Note,
            id: id.clone(),
            owner: contact_id.to_owned(),
            access: Access::Write,
            subject: None,
        }];
        self.record("POST", path, Some(payload), 201, touched);
        Ok(id)
    }

    /// Notes created during the run, in order.
    pub fn created_notes(&self) -> impl Iterator<Item = &Note> {
        self.data.notes.iter().filter(|n| !n.seeded)
    }
}

/// The functions the mock client offers, with their parameters in order.
pub const CLIENT_FUNCTIONS: [(&str, &[&str]); 5] = [
    ("search_contact_by_email", &["email"]),
    ("get_contact", &["contact_id"]),
    ("list_ticket_ids", &["contact_id"]),
    ("get_ticket", &["ticket_id"]),
    ("create_note", &["contact_id", "body"]),
];

/// A JSON value a client argument became: strings bare, other scalars as Python's `str`.
pub fn argument_text(value: &JsonValue) -> String {
    json::plain(value)
}
