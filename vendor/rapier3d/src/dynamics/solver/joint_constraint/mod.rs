pub use joint_velocity_constraint::{JointSolverBody, MotorParameters, WritebackId};

pub use any_joint_constraint::AnyJointConstraintMut;
pub use generic_joint_constraint::GenericJointConstraint;
pub(crate) use generic_joint_constraint_builder::GenericJointConstraintBuilder;
pub use generic_joint_constraint_builder::{
    JointGenericExternalConstraintBuilder, JointGenericInternalConstraintBuilder, LinkOrBodyRef,
};
pub(crate) use joint_constraint_builder::JointConstraintBuilder;
pub(crate) use joint_constraint_builder::JointConstraintBuilderSimd;
pub use joint_constraint_helper::{AngularLimitParams, JointConstraintHelper};
pub use joint_constraints_set::JointConstraintsSet;

mod any_joint_constraint;
mod generic_joint_constraint;
mod generic_joint_constraint_builder;
mod joint_constraint_builder;
mod joint_constraint_helper;
mod joint_constraints_set;
mod joint_velocity_constraint;
