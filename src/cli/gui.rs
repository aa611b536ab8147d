//! `motionlab gui`: the workbench window. Its options are the app's own
//! (`motionlab::app::LaunchOptions`: the screenshot's, the live simulation's and each panel's).

use anyhow::Result;

#[cfg(feature = "gui")]
pub use motionlab::app::LaunchOptions as GuiArgs;

/// A build without the GUI takes any options and says there is no GUI.
#[cfg(not(feature = "gui"))]
#[derive(clap::Args, Default)]
pub struct GuiArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    _rest: Vec<String>,
}

#[cfg(feature = "gui")]
pub fn gui(args: GuiArgs) -> Result<()> {
    motionlab::app::run(args)
}

#[cfg(not(feature = "gui"))]
pub fn gui(_args: GuiArgs) -> Result<()> {
    anyhow::bail!(
        "this build has no GUI (built without the `gui` feature); use a subcommand, see --help"
    )
}
