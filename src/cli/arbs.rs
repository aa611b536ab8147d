//! `motionlab arbs FILE --out CHAR.ron [--clip CLIP.ron]`: a simulated character from any
//! skinned skeleton (`.gltf`, `.glb` or `.bvh`; the automatic ARBS of Borer et al. 2018, §4.1–4.2),
//! and with `--clip` one of its animations transferred onto it by full-body IK (their §3). The CLI
//! parses arguments and prints; the work is in `motionlab::arbs`.

use crate::flags;
use anyhow::{Context, Result, bail};
use motionlab::arbs::{
    ArbsOptions, AxisSource, Forward, LoadOptions, MassRule, TransferOptions, transfer,
};
use motionlab::clip::CharacterRef;
use motionlab::model::{read_text, save_character};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ArbsArgs {
    /// A skinned skeleton: `.gltf` (its buffers beside it), `.glb`, or `.bvh`.
    pub file: PathBuf,
    /// Where to write the character (RON).
    #[arg(long)]
    pub out: PathBuf,
    /// Total mass, kg.
    #[arg(long, default_value_t = 50.0, value_parser = flags::mass)]
    pub mass: f64,
    /// How the mass is shared: `density` (one density, the paper's rule), `human` (de Leva's
    /// segment fractions, for a skeleton whose names show a human), `auto` (`human` for a
    /// skeleton without a skin, such as a BVH, else `density`).
    #[arg(long, default_value = "auto", value_parser = masses)]
    pub masses: MassRule,
    /// Height of the rest pose, m (default: the file's units, read as centimetres when the rest
    /// pose is taller than 20 units).
    #[arg(long, value_parser = flags::character_height)]
    pub height: Option<f64>,
    /// The axis the file's character faces: +z (glTF's convention; the default), -z, +x or -x.
    #[arg(long, value_parser = flags::forward, allow_hyphen_values = true)]
    pub forward: Option<Forward>,
    /// Transfer an animation onto the character and write it here (RON clip).
    #[arg(long)]
    pub clip: Option<PathBuf>,
    /// The animation to transfer: its name or its index (default: the first).
    #[arg(long, requires = "clip")]
    pub animation: Option<String>,
}

fn masses(s: &str) -> Result<MassRule, String> {
    match s {
        "density" => Ok(MassRule::Density),
        "human" => Ok(MassRule::Human),
        "auto" => Ok(MassRule::Auto),
        _ => Err(format!("expected density, human or auto, found `{s}`")),
    }
}

pub fn run(a: ArbsArgs) -> Result<()> {
    let options = ArbsOptions {
        mass: a.mass,
        masses: a.masses,
        ..ArbsOptions::default()
    };
    let opened = motionlab::arbs::open_character(
        &a.file,
        &LoadOptions {
            height: a.height,
            forward: a.forward,
        },
        &options,
    )?;
    let Some((ks, map)) = opened.built else {
        anyhow::bail!(
            "{}: a character file already; `arbs` builds one from a skinned glTF/GLB or a BVH",
            a.file.display()
        );
    };
    let c = opened.character;
    for w in &ks.warnings {
        eprintln!("warning: {w}");
    }
    println!(
        "skeleton: {} joints, {} skin samples, {:.3} m tall ({} m per file unit)",
        ks.joints.len(),
        ks.skin.len(),
        ks.rest_height(),
        ks.scale
    );
    for (i, an) in ks.animations.iter().enumerate() {
        println!(
            "animation {i}: {} ({} frames at {} fps)",
            an.name,
            an.frames.len(),
            an.rate
        );
    }
    save_character(&c, &a.out).with_context(|| format!("writing {}", a.out.display()))?;
    let text = read_text(&a.out)?;
    println!("character: {} ({})", c.name, a.out.display());
    println!("bodies: {}", c.bodies.len());
    println!("joints: {}", c.joints.len());
    println!("dof: {} internal + 6 root", c.internal_dof());
    println!("mass: {:.2} kg", c.total_mass());
    println!(
        "masses: {}",
        if map.human_masses {
            "human (de Leva's segment fractions)"
        } else {
            "density (one for every body)"
        }
    );
    if a.masses == MassRule::Human && !map.human_masses {
        eprintln!(
            "warning: --masses human: the body names show no human (a head, both thighs, shins \
             and upper arms); the mass is shared at one density"
        );
    }
    println!("height: {:.3} m", c.height());
    let count = |s: AxisSource| map.axes.iter().filter(|x| **x == Some(s)).count();
    println!(
        "hinge axes: {} from the motion, {} cross products, {} collinear fallbacks",
        count(AxisSource::Motion),
        count(AxisSource::CrossProduct),
        count(AxisSource::Collinear)
    );
    println!(
        "end effectors: {}",
        c.end_effectors
            .iter()
            .map(|e| format!("{} ({:?})", e.body, e.tag))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let Some(clip_path) = a.clip else {
        return Ok(());
    };
    if ks.animations.is_empty() {
        bail!(
            "{}: the file has no animation to transfer",
            a.file.display()
        );
    }
    let which = match &a.animation {
        Some(w) => ks.animation_index(w).ok_or_else(|| {
            anyhow::anyhow!(
                "{}: no animation {w:?}; it has {}",
                a.file.display(),
                ks.animations
                    .iter()
                    .enumerate()
                    .map(|(i, an)| format!("{i} `{}`", an.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?,
        None => 0,
    };
    let t = transfer(
        &ks,
        which,
        &c,
        &map,
        &TransferOptions {
            character: Some(CharacterRef::new(&a.out, &text)),
            ..TransferOptions::default()
        },
    )?;
    t.clip
        .save(&clip_path)
        .with_context(|| format!("writing {}", clip_path.display()))?;
    println!(
        "transferred: animation {which} `{}`, {} frames at {} fps",
        ks.animations[which].name,
        t.clip.frames.len(),
        t.clip.rate
    );
    println!("root error: {}", t.root_summary());
    println!("end-effector error: {}", t.effector_summary());
    println!("clip: {}", clip_path.display());
    Ok(())
}
