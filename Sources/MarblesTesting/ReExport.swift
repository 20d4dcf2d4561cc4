// A test target needs one import: `import MarblesTesting` brings `Marbles` (the operators,
// recorder, replay and virtual environment) with the assertions.
@_exported import Marbles
