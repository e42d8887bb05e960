"""The key ServiceAccount tokens are signed with, and what the apiserver publishes of it (docs/authentication.md).

kube-apiserver signs ServiceAccount tokens with its ``--service-account-signing-key-file``, an RSA
key in kubeadm and kind clusters, as RS256 JWTs whose header names the key by ``kid``: the unpadded
base64url SHA-256 of the public key's PKIX DER (``pkg/serviceaccount/jwt.go``,
``keyIDFromPublicKey``). It publishes the public key as a JSON Web Key Set and an OpenID discovery
document (``pkg/serviceaccount/openidmetadata.go``), so that anyone can verify its tokens.

fakeapi makes a 2048-bit RSA key the first time one is needed (making one costs tens of
milliseconds, which a server that never issues a token should not pay). A seeded server derives
its key from the seed, so that its tokens are the same in every run of a scenario and its replays;
an unseeded one lets ``cryptography`` generate it.
"""

from __future__ import annotations

import base64
import hashlib
import math
import random
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

__all__ = ["SigningKey", "openid_configuration"]

_BITS = 2048
_EXPONENT = 65537
_SMALL_PRIMES = tuple(n for n in range(3, 2000, 2) if all(n % d for d in range(3, math.isqrt(n) + 1, 2)))


def _unpadded(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _integer_bytes(value: int) -> bytes:
    return value.to_bytes((value.bit_length() + 7) // 8, "big")


def _probably_prime(candidate: int, chooser: random.Random, rounds: int = 5) -> bool:
    """Miller-Rabin with ``rounds`` random bases: five for a random 1024-bit candidate, as FIPS 186-4
    (table C.2) asks for the primes of a 2048-bit RSA key."""
    if any(candidate % small == 0 for small in _SMALL_PRIMES):
        return candidate in _SMALL_PRIMES
    odd, twos = candidate - 1, 0
    while odd % 2 == 0:
        odd, twos = odd // 2, twos + 1
    for _ in range(rounds):
        witness = pow(chooser.randrange(2, candidate - 1), odd, candidate)
        if witness in (1, candidate - 1):
            continue
        for _ in range(twos - 1):
            witness = pow(witness, 2, candidate)
            if witness == candidate - 1:
                break
        else:
            return False
    return True


def _prime(chooser: random.Random, bits: int) -> int:
    """A prime of exactly ``bits`` bits, top two bits set (so the product has ``2 * bits``), with
    ``p - 1`` coprime to the public exponent."""
    while True:
        candidate = chooser.getrandbits(bits) | (0b11 << (bits - 2)) | 1
        if (candidate - 1) % _EXPONENT and _probably_prime(candidate, chooser):
            return candidate


_SEEDED: dict[int, rsa.RSAPrivateKey] = {}


def _seeded_key(seed: int) -> rsa.RSAPrivateKey:
    """The key of ``seed``, derived once per process (every run of a scenario shares its seed)."""
    if seed not in _SEEDED:
        _SEEDED[seed] = _derive_key(seed)
    return _SEEDED[seed]


def _derive_key(seed: int) -> rsa.RSAPrivateKey:
    chooser = random.Random(hashlib.sha256(b"fakeapi service account key %d" % seed).digest())
    p = _prime(chooser, _BITS // 2)
    q = _prime(chooser, _BITS // 2)
    while q == p:
        q = _prime(chooser, _BITS // 2)
    d = pow(_EXPONENT, -1, math.lcm(p - 1, q - 1))
    numbers = rsa.RSAPrivateNumbers(
        p=p,
        q=q,
        d=d,
        dmp1=rsa.rsa_crt_dmp1(d, p),
        dmq1=rsa.rsa_crt_dmq1(d, q),
        iqmp=rsa.rsa_crt_iqmp(p, q),
        public_numbers=rsa.RSAPublicNumbers(_EXPONENT, p * q),
    )
    return numbers.private_key()


class SigningKey:
    """The server's ServiceAccount signing key, made on first use."""

    def __init__(self, seed: int) -> None:
        self._seed = seed
        self._key: rsa.RSAPrivateKey | None = None
        self._kid = ""

    @property
    def private_key(self) -> rsa.RSAPrivateKey:
        if self._key is None:
            if self._seed:
                self._key = _seeded_key(self._seed)
            else:
                self._key = rsa.generate_private_key(public_exponent=_EXPONENT, key_size=_BITS)
            der = self._key.public_key().public_bytes(
                serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
            )
            self._kid = _unpadded(hashlib.sha256(der).digest())
        return self._key

    @property
    def key_id(self) -> str:
        """``kid``: what token headers and the key set name this key by."""
        _ = self.private_key
        return self._kid

    def sign(self, signing_input: bytes) -> bytes:
        """An RS256 signature (RSASSA-PKCS1-v1_5 over SHA-256)."""
        return self.private_key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())

    def verifies(self, signing_input: bytes, signature: bytes) -> bool:
        try:
            self.private_key.public_key().verify(signature, signing_input, padding.PKCS1v15(), hashes.SHA256())
        except InvalidSignature:
            return False
        return True

    def key_set(self) -> dict[str, Any]:
        """``/openid/v1/jwks``: the public key as go-jose marshals a JSONWebKey (use, kty, kid, alg, n, e)."""
        public = self.private_key.public_key().public_numbers()
        key = {
            "use": "sig",
            "kty": "RSA",
            "kid": self.key_id,
            "alg": "RS256",
            "n": _unpadded(_integer_bytes(public.n)),
            "e": _unpadded(_integer_bytes(public.e)),
        }
        return {"keys": [key]}


def openid_configuration(issuer: str, jwks_uri: str) -> dict[str, Any]:
    """``/.well-known/openid-configuration``, fields in ``openIDMetadata``'s order."""
    return {
        "issuer": issuer,
        "jwks_uri": jwks_uri,
        "response_types_supported": ["id_token"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
    }
