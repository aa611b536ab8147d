//! `motionlab clip import|export|info`: moving clips in and out of the project (BVH, glTF, gait
//! solves) and summarising them. The CLI parses arguments and prints; the work is in
//! `motionlab::clip`.

use anyhow::{Context, Result, bail};
use motionlab::clip::gltf as gltf_clip;
use motionlab::clip::{CharacterRef, Clip, bvh, from_gait::clip_of_gait};
use motionlab::model::{Character, load_character, save_character};
use std::path::{Path, PathBuf};

#[derive(clap::Subcommand)]
pub enum ClipCommand {
    /// Make a clip from a BVH file (motion capture), a glTF animation (`clip export`'s) or a
    /// gait solve (`gait --out`).
    #[command(
        after_help = "Example: `motionlab clip import assets/gaits/human3d_walk_1.2ms.ron --out results/walk.ron`"
    )]
    Import {
        /// A `.bvh` file, a `.glb`/`.gltf` file, or a gait clip (`.ron`).
        file: PathBuf,
        /// Where to write the clip (RON).
        #[arg(long)]
        out: PathBuf,
        /// The character to map the motion onto (BVH: nodes named after its bodies; glTF:
        /// default the one the file names; gait: default `characters/<creature>.ron`). Without it a BVH file brings its own
        /// character, written beside the clip as `<out>.character.ron`.
        #[arg(long)]
        character: Option<PathBuf>,
        /// BVH: metres per file unit (default: 0.01 for hierarchies taller than 20 units, i.e.
        /// centimetres, else 1).
        #[arg(long, value_parser = crate::flags::bvh_scale)]
        scale: Option<f64>,
    },
    /// Write a clip as BVH, or as a skinned, animated glTF (`.glb`, or `.gltf` with its buffer
    /// in a `.bin` beside it); the extension of --out chooses.
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

fn character_ref(path: &Path) -> Result<(Character, CharacterRef)> {
    let text = motionlab::model::read_text(path)?;
    let c = load_character(path)?;
    Ok((c, CharacterRef::new(path, &text)))
}

/// The clip's character, from the path it names.
pub fn clip_character(clip: &Clip) -> Result<Character> {
    let path = Path::new(&clip.character.path);
    let c = load_character(path)
        .with_context(|| format!("the clip's character {} cannot be loaded", path.display()))?;
    clip.check_character(&c).map_err(anyhow::Error::msg)?;
    Ok(c)
}

fn import(file: &Path, out: &Path, character: Option<&Path>, scale: Option<f64>) -> Result<()> {
    let is_bvh = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("bvh"));
    let extension = file
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let clip = if extension == "glb" || extension == "gltf" {
        let bytes =
            std::fs::read(file).with_context(|| format!("{}: cannot read", file.display()))?;
        let name = file.display().to_string();
        let path = match character {
            Some(p) => p.to_path_buf(),
            None => PathBuf::from(gltf_clip::character_of_file(&bytes).ok_or_else(|| {
                anyhow::anyhow!("{name}: the file does not name its character: give --character")
            })?),
        };
        let (c, r) = character_ref(&path)?;
        if extension == "glb" {
            gltf_clip::import_glb(&bytes, &c, r, &name)
        } else {
            let bin = std::fs::read(file.with_extension("bin")).with_context(|| {
                format!(
                    "{name}: its buffer {}",
                    file.with_extension("bin").display()
                )
            })?;
            gltf_clip::import_gltf(&bytes, &bin, &c, r, &name)
        }
        .map_err(anyhow::Error::msg)?
    } else if is_bvh {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("{}: cannot read", file.display()))?;
        let name = file.display().to_string();
        let parsed = bvh::parse(&text, &name)?;
        for w in &parsed.warnings {
            eprintln!("warning: {w}");
        }
        let scale = scale.unwrap_or_else(|| bvh::guess_scale(parsed.rest_height()));
        let (c, r) = match character {
            Some(p) => character_ref(p)?,
            None => {
                let stem = out
                    .file_stem()
                    .map(|s| s.to_string_lossy().to_string())
                    .unwrap_or_else(|| "imported".into());
                let c = bvh::character_of(&parsed, &stem, scale);
                let problems = c.validate();
                if !problems.is_empty() {
                    bail!(
                        "{name}: the hierarchy does not make a valid character: {}",
                        problems
                            .iter()
                            .map(|p| p.to_string())
                            .collect::<Vec<_>>()
                            .join("; ")
                    );
                }
                let path = out.with_extension("character.ron");
                save_character(&c, &path).with_context(|| format!("writing {}", path.display()))?;
                println!("character: {}", path.display());
                character_ref(&path)?
            }
        };
        println!("scale: {scale} m per unit");
        bvh::clip_on_character(&parsed, &c, r, scale, &name)?
    } else {
        let gait: motionlab::spacetime::gait::GaitClip = motionlab::files::read_ron(file)
            .with_context(|| "expected a .bvh file or a gait clip written by `gait --out`")?;
        let path = character.map(Path::to_path_buf).unwrap_or_else(|| {
            PathBuf::from("characters").join(format!("{}.ron", gait.creature.replace(' ', "_")))
        });
        let (c, r) = character_ref(&path)?;
        clip_of_gait(&gait, &c, r).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?
    };
    clip.check().map_err(anyhow::Error::msg)?;
    clip.save(out)
        .with_context(|| format!("writing {}", out.display()))?;
    println!("frames: {}", clip.frames.len());
    println!("clip: {}", out.display());
    Ok(())
}

fn export(clip_path: &Path, out: &Path) -> Result<()> {
    let clip = Clip::load(clip_path)?;
    let c = clip_character(&clip)?;
    match out
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .as_deref()
    {
        Some("bvh") => {
            motionlab::files::write_atomic(out, bvh::export(&clip, &c).as_bytes())
                .with_context(|| format!("writing {}", out.display()))?;
        }
        Some("glb") => {
            motionlab::files::write_atomic(out, &gltf_clip::export_glb(&clip, &c))
                .with_context(|| format!("writing {}", out.display()))?;
        }
        Some("gltf") => {
            let bin = out.with_extension("bin");
            let bin_name = bin
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            let (text, bytes) = gltf_clip::export_gltf(&clip, &c, &bin_name);
            motionlab::files::write_atomic(&bin, &bytes)
                .with_context(|| format!("writing {}", bin.display()))?;
            motionlab::files::write_atomic(out, text.as_bytes())
                .with_context(|| format!("writing {}", out.display()))?;
        }
        other => bail!(
            "{}: cannot write {}: expected --out ending in .bvh, .glb or .gltf",
            out.display(),
            other
                .map(|e| format!("`.{e}` files"))
                .unwrap_or("a file without extension".into())
        ),
    }
    println!("wrote {}", out.display());
    Ok(())
}

fn info(path: &Path) -> Result<()> {
    let clip = Clip::load(path)?;
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
    println!("made_by: {}", clip.provenance.command);
    println!("version: {}", clip.provenance.version);
    Ok(())
}
