//! Rasa 3.21 project files read the way Rasa reads them: skills, config, memory, imports.
