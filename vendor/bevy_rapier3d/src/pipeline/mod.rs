pub(crate) use self::events::EventQueue;
pub use self::events::{CollisionEvent, ContactForceEvent};
pub(crate) use self::physics_hooks::BevyPhysicsHooksAdapter;
pub use self::physics_hooks::{
    BevyPhysicsHooks, ContactModificationContextView, PairFilterContextView,
};
pub use query_filter::{QueryFilter, QueryFilterFlags};

mod events;
mod physics_hooks;
mod query_filter;
