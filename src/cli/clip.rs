//! `motionlab clip import|export|info`: moving clips in and out of the project (BVH, glTF, gait
//! solves) and summarising them. The CLI parses arguments and prints; the work is in
//! `motionlab::clip`.

use anyhow::{Context, Result};
use motionlab::clip::{CharacterRef, OpenOptions};
use motionlab::model::save_character;
use std::path::{Path, PathBuf};

#[derive(clap::Subcommand)]
pub enum ClipCommand {
    /// Make a clip from a BVH file (motion capture), a glTF animation (`clip export`'s), a gait
    /// solve (`gait --out`) or another clip.
    #[command(
        after_help = "Example: `motionlab clip import assets/gaits/human3d_walk_1.2ms.ron --out results/walk.ron`"
    )]
    Import {
        /// A `.bvh` file, a `.glb`/`.gltf` file, a gait clip or a clip (`.ron`).
        file: PathBuf,
        /// Where to write the clip (RON).
        #[arg(long)]
        out: PathBuf,
        /// The character to map the motion onto (BVH: nodes named after its bodies; glTF, gait
        /// and clips: default the one the file names). Without it a BVH file brings its own
        /// character, written beside the clip as `<out>.character.ron`.
        #[arg(long)]
        character: Option<PathBuf>,
        /// BVH: metres per file unit (default: 0.01 for hierarchies taller than 20 units, i.e.
        /// centimetres, else 1).
        #[arg(long, value_parser = crate::flags::bvh_scale)]
        scale: Option<f64>,
    },
    /// Write a clip (or anything `clip import` reads) as BVH, RON, or a skinned, animated glTF
    /// (`.glb`, or `.gltf` with its buffer in a `.bin` beside it); the extension of --out
    /// chooses. A clip read from BVH is written with its file's own hierarchy.
    #[command(
        after_help = "Example: `motionlab clip export assets/spaces/human3d_locomotion/clips/gait=walk1.0_turn=0.ron --out results/walk.glb`"
    )]
    Export {
        clip: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// Print a clip's character, frames, rate, duration, cycle, tags and root travel.
    #[command(
        after_help = "Example: `motionlab clip info assets/spaces/human3d_locomotion/clips/gait=walk1.0_turn=0.ron`"
    )]
    Info { clip: PathBuf },
}

pub fn run(command: ClipCommand) -> Result<()> {
    match command {
        ClipCommand::Import {
            file,
            out,
            character,
            scale,
        } => import(&file, &out, character.as_deref(), scale),
        ClipCommand::Export { clip, out } => export(&clip, &out),
        ClipCommand::Info { clip } => info(&clip),
    }
}

fn import(file: &Path, out: &Path, character: Option<&Path>, scale: Option<f64>) -> Result<()> {
    let opened = motionlab::clip::open(
        file,
        &OpenOptions {
            character: character.map(Path::to_path_buf),
            bvh_scale: scale,
        },
    )?;
    for w in &opened.warnings {
        eprintln!("warning: {w}");
    }
    let mut clip = opened.clip;
    if opened.derived_character {
        // A BVH file brings its own character: saved beside the clip, which names it.
        let mut c = opened.character;
        c.name = out
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| "imported".into());
        let path = out.with_extension("character.ron");
        save_character(&c, &path).with_context(|| format!("writing {}", path.display()))?;
        println!("character: {}", path.display());
        clip.character = CharacterRef::new(&path, &motionlab::model::read_text(&path)?);
    }
    if let Some(h) = &clip.bvh {
        println!("scale: {} m per unit", h.scale);
    }
    clip.check()?;
    clip.save(out)
        .with_context(|| format!("writing {}", out.display()))?;
    println!("frames: {}", clip.frames.len());
    println!("clip: {}", out.display());
    Ok(())
}

fn export(clip_path: &Path, out: &Path) -> Result<()> {
    let opened = motionlab::clip::open(clip_path, &OpenOptions::default())?;
    motionlab::clip::save(&opened.clip, &opened.character, out)?;
    println!("wrote {}", out.display());
    Ok(())
}

fn info(path: &Path) -> Result<()> {
    let opened = motionlab::clip::open(path, &OpenOptions::default())?;
    let clip = opened.clip;
    let i = clip.info();
    println!("character: {}", i.character);
    println!("frames: {}", i.frames);
    println!("rate: {} fps", i.rate);
    println!("duration: {:.4} s", i.duration);
    println!("cyclic: {}", i.cyclic);
    if let Some(c) = &clip.cycle {
        println!(
            "cycle: translation ({:.4}, {:.4}, {:.4}) m, yaw {:.4} rad",
            c.translation[0], c.translation[1], c.translation[2], c.yaw
        );
    }
    let t = &clip.tags;
    println!("source: {}", t.source);
    if let Some(v) = t.speed {
        println!("speed: {v} m/s");
    }
    if let Some(v) = t.turn_rate {
        println!("turn_rate: {v} rad/s");
    }
    if let Some(v) = &t.family {
        println!("family: {v}");
    }
    if let Some(v) = t.cost {
        println!("cost: {v}");
    }
    if let Some(v) = t.seed {
        println!("seed: {v}");
    }
    if let Some(v) = &t.status {
        println!("status: {v}");
    }
    println!(
        "root_travel: ({:.4}, {:.4}, {:.4}) m",
        i.root_travel[0], i.root_travel[1], i.root_travel[2]
    );
    // The simulation stops a joint at its limits: physics playback cannot follow past them.
    let beyond = motionlab::clip::limits::beyond_limits(&clip, &opened.character, 0.02);
    if beyond.is_empty() {
        println!("beyond_limits: none");
    } else {
        let list: Vec<String> = beyond
            .iter()
            .map(|e| {
                format!(
                    "{} by {:.2} rad in {} of {} frames",
                    e.coordinate,
                    e.excess,
                    e.frames,
                    clip.frames.len()
                )
            })
            .collect();
        println!(
            "beyond_limits: {} (the simulation stops these joints at their limits)",
            list.join(", ")
        );
    }
    println!("made_by: {}", clip.provenance.command);
    println!("version: {}", clip.provenance.version);
    Ok(())
}
