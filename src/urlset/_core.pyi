# Types of the private compiled module (rust/py); nothing here is public API.
VERSION: str
OPTIMIZED: bool
