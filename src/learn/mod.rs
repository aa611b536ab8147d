//! Policies learned by reinforcement: a small network ([`network`]) trained by proximal policy
//! optimization ([`ppo`]), the way DeepMimic (Peng, Abbeel, Levine & van de Panne 2018) and
//! DReCon (Bergamin, Clavet, Holden & Forbes 2019) learn to make a simulated character follow a
//! kinematic one. What the policy observes and what it is rewarded for belong to the task that
//! uses it (the steered human: [`crate::steering::tracker`]).

pub mod network;
pub mod ppo;
