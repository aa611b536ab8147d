pub use self::character_controller::{
    CharacterAutostep, CharacterCollision, CharacterLength, KinematicCharacterController,
    KinematicCharacterControllerOutput, MoveShapeOptions, MoveShapeOutput,
};

mod character_controller;
