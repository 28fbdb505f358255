//! The CRM as a project's HTTP client reaches it: HubSpot CRM v3 requests, answered by
//! the project's own mock when it ships one ([`super::network`]), else by the seed's
//! data in HubSpot v3's shapes. Either way every request goes into the CRM's log with
//! the records it touched and whose they are, so the attack and the panes read a
//! project's own client exactly as they read the built-in one.
//!
//! Whose a record is comes from the request and the answer, by HubSpot v3's paths:
//! a contact is its own; a contact's ticket associations are that contact's; a ticket is
//! the contact whose associations listed it earlier in the run (else the seed's owner);
//! a note is the contact its `associations[].to.id` names.

use super::crm::{Access, Crm, CrmRequest, RecordKind, Touched};
use super::json::{self, JsonValue, object, string};
use super::network::CRM_ADDRESS;
use crate::python::{Delivery, FIXED_DATE, HttpRequest, HttpResponse, reason_phrase};

/// HubSpot's answer to a request without a bearer token.
const NO_CREDENTIALS: &str = "Authentication credentials not found. This API supports OAuth \
                              2.0 authentication and you can find more details at \
                              https://developers.hubspot.com/docs/methods/auth/oauth-overview";

impl Crm {
    /// Delivers an HTTP request: to the project's mock if it listens at the address, to
    /// the seed's CRM at [`CRM_ADDRESS`] when the project ships none, else nowhere.
    pub fn http(&mut self, request: &HttpRequest) -> Delivery {
        let delivery = match self.mock.as_mut() {
            Some(mock) if mock.listens_at(&request.host, request.port) => mock.serve(request),
            Some(_) => Delivery::Refused,
            None if (request.host.as_str(), request.port) == CRM_ADDRESS
                || (request.host == "localhost" && request.port == CRM_ADDRESS.1) =>
            {
                Delivery::Answered(self.hubspot(request))
            }
            None => Delivery::Refused,
        };
        if let Delivery::Answered(response) = &delivery {
            self.log_http(request, response);
        }
        delivery
    }

    /// The seed's data answering one HubSpot v3 request.
    fn hubspot(&self, request: &HttpRequest) -> HttpResponse {
        let authorised = request
            .header("Authorization")
            .and_then(|h| h.strip_prefix("Bearer "))
            .is_some_and(|token| !token.trim().is_empty());
        if !authorised {
            return answer(
                401,
                &object([
                    ("status", string("error")),
                    ("message", string(NO_CREDENTIALS)),
                    ("correlationId", string("00000000-0000-0000-0000-000000000000")),
                    ("category", string("INVALID_AUTHENTICATION")),
                ]),
            );
        }
        let parts: Vec<&str> = request.path.trim_matches('/').split('/').collect();
        let not_found = || {
            answer(
                404,
                &object([
                    ("status", string("error")),
                    ("message", string("resource not found")),
                    ("category", string("OBJECT_NOT_FOUND")),
                ]),
            )
        };
        let body = json::parse(&String::from_utf8_lossy(&request.body)).unwrap_or(JsonValue::Null);
        match (request.method.as_str(), parts.as_slice()) {
            ("POST", ["crm", "v3", "objects", "contacts", "search"]) => {
                let wanted = email_filter(&body).unwrap_or_default();
                let found: Vec<JsonValue> = self
                    .data
                    .contacts
                    .iter()
                    .filter(|c| c.email.eq_ignore_ascii_case(wanted.trim()))
                    .map(|c| {
                        object([
                            ("id", string(&c.id)),
                            (
                                "properties",
                                object([
                                    ("email", string(&c.email)),
                                    ("firstname", string(&c.firstname)),
                                    ("lastname", string(&c.lastname)),
                                    ("company", string(&c.company)),
                                ]),
                            ),
                        ])
                    })
                    .collect();
                let total = i64::try_from(found.len()).unwrap_or(i64::MAX);
                answer(
                    200,
                    &object([
                        ("total", JsonValue::Int(total)),
                        ("results", JsonValue::Array(found)),
                    ]),
                )
            }
            ("GET", ["crm", "v3", "objects", "contacts", id, "associations", "tickets"]) => {
                if self.data.contact(id).is_none() {
                    return not_found();
                }
                let links = self
                    .data
                    .tickets
                    .iter()
                    .filter(|t| t.contact == *id)
                    .map(|t| object([("id", string(&t.id)), ("type", string("contact_to_ticket"))]))
                    .collect();
                answer(200, &object([("results", JsonValue::Array(links))]))
            }
            ("GET", ["crm", "v3", "objects", "contacts", id]) => match self.data.contact(id) {
                Some(c) => answer(
                    200,
                    &object([
                        ("id", string(&c.id)),
                        (
                            "properties",
                            object([
                                ("email", string(&c.email)),
                                ("firstname", string(&c.firstname)),
                                ("lastname", string(&c.lastname)),
                                ("company", string(&c.company)),
                            ]),
                        ),
                    ]),
                ),
                None => not_found(),
            },
            ("GET", ["crm", "v3", "objects", "tickets", id]) => {
                match self.data.tickets.iter().find(|t| t.id == *id) {
                    Some(t) => answer(
                        200,
                        &object([
                            ("id", string(&t.id)),
                            (
                                "properties",
                                object([
                                    ("subject", string(&t.subject)),
                                    ("hs_pipeline_stage", string(&t.stage)),
                                    ("createdate", string(&t.created)),
                                ]),
                            ),
                        ]),
                    ),
                    None => not_found(),
                }
            }
            ("POST", ["crm", "v3", "objects", "notes"]) => {
                let contact = note_contact(&body);
                if contact.as_deref().is_none_or(|c| self.data.contact(c).is_none()) {
                    return answer(
                        400,
                        &object([
                            ("status", string("error")),
                            ("message", string("One or more associations are invalid")),
                            ("category", string("VALIDATION_ERROR")),
                        ]),
                    );
                }
                let id = self.data.next_note_id.to_string();
                let properties = json::get(&body, "properties")
                    .cloned()
                    .unwrap_or(JsonValue::Object(Vec::new()));
                answer(201, &object([("id", string(&id)), ("properties", properties)]))
            }
            _ => not_found(),
        }
    }

    /// Logs one answered request with the records it touched, and keeps the run's notes
    /// in step when the built-in CRM or the project's mock created one.
    fn log_http(&mut self, request: &HttpRequest, response: &HttpResponse) {
        let body = json::parse(&String::from_utf8_lossy(&request.body)).ok();
        let answer =
            json::parse(&String::from_utf8_lossy(&response.body)).unwrap_or(JsonValue::Null);
        let parts: Vec<&str> = request.path.trim_matches('/').split('/').collect();
        let ok = (200..300).contains(&response.status);
        let read = |kind: RecordKind, id: &str, owner: &str| Touched {
            kind,
            id: id.to_owned(),
            owner: owner.to_owned(),
            access: Access::Read,
            subject: None,
        };
        let mut touched = Vec::new();
        match (request.method.as_str(), parts.as_slice()) {
            ("POST", ["crm", "v3", "objects", "contacts", "search"]) if ok => {
                for found in results(&answer) {
                    if let Some(id) = id_of(found) {
                        touched.push(read(RecordKind::Contact, &id, &id));
                    }
                }
            }
            ("GET", ["crm", "v3", "objects", "contacts", id, "associations", "tickets"]) if ok => {
                touched.push(read(RecordKind::Associations, id, id));
            }
            ("GET", ["crm", "v3", "objects", "contacts", id]) if ok => {
                touched.push(read(RecordKind::Contact, id, id));
            }
            ("GET", ["crm", "v3", "objects", "tickets", id]) if ok => {
                let owner = self.ticket_owner(id).unwrap_or_else(|| "?".to_owned());
                let subject = self
                    .mock
                    .as_ref()
                    .and_then(|_| json::at_path(&answer, "properties.subject"))
                    .map(json::plain);
                touched.push(Touched { subject, ..read(RecordKind::Ticket, id, &owner) });
            }
            ("POST", ["crm", "v3", "objects", "notes"]) if ok => {
                let id = id_of(&answer).unwrap_or_default();
                let owner = body.as_ref().and_then(note_contact).unwrap_or_else(|| "?".to_owned());
                let text = body
                    .as_ref()
                    .and_then(|b| json::at_path(b, "properties.hs_note_body"))
                    .map(json::plain)
                    .unwrap_or_default();
                // The run's notes, whoever stored them: the transcript and the panes
                // list them the same way for the seed's CRM and a project's mock.
                let data = std::sync::Arc::make_mut(&mut self.data);
                if self.mock.is_none() {
                    data.next_note_id = data.next_note_id.saturating_add(1);
                }
                data.notes.push(super::crm::Note {
                    id: id.clone(),
                    contact: owner.clone(),
                    body: text,
                    seeded: false,
                });
                touched.push(Touched {
                    kind: RecordKind::Note,
                    id,
                    owner,
                    access: Access::Write,
                    subject: None,
                });
            }
            _ => {}
        }
        // The associations an earlier answer listed tell whose a ticket is.
        if let ("GET", ["crm", "v3", "objects", "contacts", id, "associations", "tickets"]) =
            (request.method.as_str(), parts.as_slice())
            && ok
        {
            for link in results(&answer) {
                let ticket = id_of(link).or_else(|| json::get(link, "toObjectId").map(json::plain));
                if let Some(ticket) = ticket {
                    self.ticket_owners.push((ticket, (*id).to_owned()));
                }
            }
        }
        let method = match request.method.as_str() {
            "GET" => "GET",
            "POST" => "POST",
            "PUT" => "PUT",
            "PATCH" => "PATCH",
            "DELETE" => "DELETE",
            _ => "OTHER",
        };
        self.log.push(CrmRequest {
            method,
            path: request.target(),
            body,
            status: response.status,
            touched,
        });
    }

    /// Whose ticket `id` is: the contact whose associations listed it, else the seed's.
    fn ticket_owner(&self, id: &str) -> Option<String> {
        self.ticket_owners
            .iter()
            .rev()
            .find(|(ticket, _)| ticket == id)
            .map(|(_, owner)| owner.clone())
            .or_else(|| self.data.tickets.iter().find(|t| t.id == id).map(|t| t.contact.clone()))
    }
}

/// A JSON answer as `http.server` would send it from the seed's CRM.
fn answer(status: u16, body: &JsonValue) -> HttpResponse {
    let body = json::compact(body).into_bytes();
    HttpResponse {
        status,
        reason: reason_phrase(status).to_owned(),
        headers: vec![
            ("Date".to_owned(), FIXED_DATE.to_owned()),
            ("Content-Type".to_owned(), "application/json;charset=utf-8".to_owned()),
            ("Content-Length".to_owned(), body.len().to_string()),
        ],
        body,
    }
}

/// `results` of an answer.
fn results(answer: &JsonValue) -> Vec<&JsonValue> {
    match json::get(answer, "results") {
        Some(JsonValue::Array(items)) => items.iter().collect(),
        _ => Vec::new(),
    }
}

/// A record's `id`, as text.
fn id_of(record: &JsonValue) -> Option<String> {
    json::get(record, "id").map(json::plain)
}

/// The email an `EQ` filter on `email` asks for.
fn email_filter(body: &JsonValue) -> Option<String> {
    let Some(JsonValue::Array(groups)) = json::get(body, "filterGroups") else { return None };
    groups.iter().find_map(|group| {
        let Some(JsonValue::Array(filters)) = json::get(group, "filters") else { return None };
        filters.iter().find_map(|f| {
            (json::get(f, "propertyName").map(json::plain).as_deref() == Some("email"))
                .then(|| json::get(f, "value").map(json::plain))
                .flatten()
        })
    })
}

/// The contact a note's `associations[0].to.id` names.
fn note_contact(body: &JsonValue) -> Option<String> {
    let Some(JsonValue::Array(links)) = json::get(body, "associations") else { return None };
    links.first().and_then(|link| json::at_path(link, "to.id")).map(json::plain)
}
