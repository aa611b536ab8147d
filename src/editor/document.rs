//! The character being edited, with undo and redo (the editing tools of Keys-to-Sim,
//! Borer et al. 2018, §4.3; every operation is undoable).
//!
//! Every accepted edit is one undo step holding the character before and after it (whole
//! snapshots: a character is a few kilobytes, and undoing restores it exactly, so the saved text
//! is byte-identical too). An edit is tried on a copy and kept only if
//! [`Character::validate`] finds no problem; a rejected edit changes nothing. An edit that
//! changes nothing adds no step. In mirror mode the edit and its reflection onto the partner
//! body (see `mirror`) are one step, kept or rejected together.

use super::edit::{Edit, Rejection, apply_edit};
use super::mirror::{mirrored, partner};
use crate::model::{Character, Problem, save_character};
use std::mem::Discriminant;
use std::path::Path;

/// Why an edit was not applied. Nothing changed.
#[derive(Clone, Debug, PartialEq)]
pub enum EditError {
    /// The edit cannot be carried out (an unknown name, a body that is not terminal, deleting
    /// the root, …).
    Rejected(Rejection),
    /// The result would not be a valid character: the problems [`Character::validate`] found.
    Invalid(Vec<Problem>),
}

impl EditError {
    /// One message per problem, as `motionlab check` words them (without file and line).
    pub fn messages(&self) -> Vec<String> {
        match self {
            EditError::Rejected(r) => vec![r.to_string()],
            EditError::Invalid(p) => p.iter().map(|p| p.to_string()).collect(),
        }
    }
}

impl std::fmt::Display for EditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.messages().join("; "))
    }
}

impl std::error::Error for EditError {}

/// Which drag a coalescing step belongs to: the edit's variant and subject.
type DragKey = (Discriminant<Edit>, String);

#[derive(Clone, Debug)]
struct Step {
    before: Character,
    after: Character,
    /// Set while `apply_coalesced` may still fold edits into this step.
    drag: Option<DragKey>,
}

/// An undoable editing session on one character.
#[derive(Clone, Debug)]
pub struct Editor {
    current: Character,
    saved: Character,
    undo: Vec<Step>,
    redo: Vec<Step>,
    /// Apply every edit also, reflected, to the subject's partner in `mirror_pairs`.
    pub mirror: bool,
}

impl Editor {
    /// Starts editing `character`, taken as the saved (loaded) state. Mirror mode is off.
    pub fn new(character: Character) -> Self {
        Editor {
            saved: character.clone(),
            current: character,
            undo: Vec::new(),
            redo: Vec::new(),
            mirror: false,
        }
    }

    pub fn character(&self) -> &Character {
        &self.current
    }

    /// Applies `edit` (and, in mirror mode, its reflection) as one undo step, if the result
    /// validates. Clears the redo list.
    pub fn apply(&mut self, edit: Edit) -> Result<(), EditError> {
        let after = self.attempt(&edit)?;
        self.push(after, None);
        Ok(())
    }

    /// Like [`Editor::apply`], but while a slider is dragged: if the last undo step came from
    /// `apply_coalesced` with the same variant on the same subject (and nothing was undone or
    /// saved since, nor [`Editor::end_drag`] called), its result is replaced instead of a new
    /// step being added, so one drag is one undo. A drag back to where it started removes the
    /// step.
    pub fn apply_coalesced(&mut self, edit: Edit) -> Result<(), EditError> {
        let key = (std::mem::discriminant(&edit), edit.subject());
        let after = self.attempt(&edit)?;
        match self.undo.last_mut() {
            Some(step) if self.redo.is_empty() && step.drag.as_ref() == Some(&key) => {
                if after == step.before {
                    self.undo.pop();
                } else {
                    step.after = after.clone();
                }
                self.current = after;
            }
            _ => self.push(after, Some(key)),
        }
        Ok(())
    }

    /// Ends the current drag: the next [`Editor::apply_coalesced`] starts a new undo step.
    pub fn end_drag(&mut self) {
        if let Some(step) = self.undo.last_mut() {
            step.drag = None;
        }
    }

    /// The character `edit` would give, validated.
    fn attempt(&self, edit: &Edit) -> Result<Character, EditError> {
        let mut c = self.current.clone();
        let mirror = if self.mirror {
            mirrored(&self.current, edit).map_err(EditError::Rejected)?
        } else {
            None
        };
        let created = apply_edit(&mut c, edit).map_err(EditError::Rejected)?;
        if let Some(m) = mirror {
            let created_too = apply_edit(&mut c, &m)
                .map_err(|e| EditError::Rejected(Rejection::MirroredSide(Box::new(e))))?;
            // Pads added in mirror mode are partners, so that later pad edits mirror too.
            if let (Some(a), Some(b)) = (created, created_too) {
                let subject_is_left = self
                    .current
                    .mirror_pairs
                    .iter()
                    .any(|(l, _)| *l == edit.subject());
                c.mirror_pairs
                    .push(if subject_is_left { (a, b) } else { (b, a) });
            }
        }
        let problems = c.validate();
        if problems.is_empty() {
            Ok(c)
        } else {
            Err(EditError::Invalid(problems))
        }
    }

    fn push(&mut self, after: Character, drag: Option<DragKey>) {
        if after == self.current {
            return;
        }
        self.redo.clear();
        let before = std::mem::replace(&mut self.current, after.clone());
        self.undo.push(Step {
            before,
            after,
            drag,
        });
    }

    /// Undoes the last step; false if there is none.
    pub fn undo(&mut self) -> bool {
        let Some(mut step) = self.undo.pop() else {
            return false;
        };
        step.drag = None;
        self.current = step.before.clone();
        self.redo.push(step);
        true
    }

    /// Redoes the last undone step; false if there is none.
    pub fn redo(&mut self) -> bool {
        let Some(step) = self.redo.pop() else {
            return false;
        };
        self.current = step.after.clone();
        self.undo.push(step);
        true
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    pub fn undo_len(&self) -> usize {
        self.undo.len()
    }

    pub fn redo_len(&self) -> usize {
        self.redo.len()
    }

    /// The partner of `body` in the character's mirror pairs (what mirror mode edits too).
    pub fn partner(&self, body: &str) -> Option<String> {
        partner(&self.current, body)
    }

    /// True when the character differs from the last saved (or loaded) one.
    pub fn is_modified(&self) -> bool {
        self.current != self.saved
    }

    /// Takes the current character as saved; also ends a drag.
    pub fn mark_saved(&mut self) {
        self.saved = self.current.clone();
        self.end_drag();
    }

    /// Writes the character to `path` atomically ([`save_character`]) and marks it saved.
    pub fn save(&mut self, path: &Path) -> std::io::Result<()> {
        save_character(&self.current, path)?;
        self.mark_saved();
        Ok(())
    }
}
